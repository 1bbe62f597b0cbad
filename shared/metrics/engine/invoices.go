package engine

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// pricedItem is a line item of an accepted invoice with its MRR in the account currency.
type pricedItem struct {
	LineItem
	invoice int // index into Input.Invoices
	seq     int // input order, the last tie-break
	plan    Plan
	price   price // line MRR; zero for trial items
}

// price is an MRR amount in the invoice currency with the rate that converts it (that of
// its service period's start day, §5). Keeping the two apart is what lets a renewal at a
// new rate be told from a change of price (docs/metrics-engine.md, exchange-rate impact).
type price struct {
	native   *big.Rat // invoice-currency cents
	currency string   // upper case; the account currency when the invoice gives none
	rate     *big.Rat // account-currency units per invoice-currency unit
}

// value is the amount in the account currency.
func (p price) value() *big.Rat { return new(big.Rat).Mul(p.native, p.rate) }

// clone copies the native amount, which steps add to.
func (p price) clone() price {
	p.native = new(big.Rat).Set(p.native)
	return p
}

// screenInvoices keeps the invoices that count (§1.3, §3.2, §5, §1.8) and prices their
// subscription and trial items. Voided, written-off (unless their source's rules count
// them) and (with refund_full_only, the source's or else the account's) fully refunded
// invoices are dropped silently; malformed ones and ones missing an exchange rate are
// listed as invalid rather than guessed.
func screenInvoices(in Input, plans map[string]Plan) ([]pricedItem, []InvalidInvoice) {
	var items []pricedItem
	var invalid []InvalidInvoice
	seq := 0
	for i, inv := range in.Invoices {
		if in.excludedByStatus(inv) {
			continue
		}
		if in.settingsFor(inv.DataSourceUUID).RefundHandling == RefundFullOnly && fullyRefunded(inv) {
			continue
		}
		priced, err := priceInvoice(in, inv, plans)
		if err != nil {
			invalid = append(invalid, InvalidInvoice{UUID: inv.UUID, ExternalID: inv.ExternalID, Reason: err.Error()})
			continue
		}
		for _, p := range priced {
			p.invoice, p.seq = i, seq
			seq++
			items = append(items, p)
		}
	}
	return items, invalid
}

func priceInvoice(in Input, inv Invoice, plans map[string]Plan) ([]pricedItem, error) {
	var out []pricedItem
	for _, it := range inv.LineItems {
		switch it.Type {
		case ItemOneTime:
			continue // one-time items never carry MRR
		case ItemSubscription, ItemTrial:
		default:
			return nil, fmt.Errorf("line item %s has unknown type %q", it.ExternalID, it.Type)
		}
		if it.SubscriptionExternalID == "" {
			return nil, fmt.Errorf("line item %s has no subscription_external_id", it.ExternalID)
		}
		plan, ok := plans[it.PlanUUID]
		if !ok {
			return nil, fmt.Errorf("line item %s refers to unknown plan %q", it.ExternalID, it.PlanUUID)
		}
		if !it.ServicePeriodEnd.After(it.ServicePeriodStart) {
			return nil, fmt.Errorf("line item %s has service_period_end not after service_period_start", it.ExternalID)
		}
		if _, err := monthlyRatio(plan); err != nil {
			return nil, err
		}
		p := pricedItem{LineItem: it, plan: plan}
		if it.Type == ItemSubscription {
			if it.Prorated && !validProrationType(it.ProrationType) {
				return nil, fmt.Errorf("line item %s has unknown proration_type %q", it.ExternalID, it.ProrationType)
			}
			cents, _ := lineMRR(it, plan, it.ProrationType != ProrationDifferentialMRR)
			pr, err := priceOn(in, cents, inv.Currency, it.ServicePeriodStart)
			if err != nil {
				return nil, err
			}
			p.price = pr
		}
		out = append(out, p)
	}
	return out, nil
}

func validProrationType(t string) bool {
	return t == "" || t == ProrationDifferential || t == ProrationFull || t == ProrationDifferentialMRR
}

// priceOn prices cents of currency at the rate of the UTC day of at (the service period
// start, §5).
func priceOn(in Input, cents int64, currency string, at time.Time) (price, error) {
	p := price{native: ratOf(cents), currency: strings.ToUpper(currency), rate: big.NewRat(1, 1)}
	if currency == "" || strings.EqualFold(currency, in.Settings.Currency) {
		p.currency = strings.ToUpper(in.Settings.Currency)
		return p, nil
	}
	day := at.UTC().Format(time.DateOnly)
	if in.Rates != nil {
		if r, ok := in.Rates.Rate(day, p.currency); ok && r > 0 && !math.IsInf(r, 0) {
			// Through the shortest decimal form so 0.3 means 3/10, not the binary neighbour
			// just below it that truncation would turn into a lost cent.
			p.rate, _ = new(big.Rat).SetString(strconv.FormatFloat(r, 'g', -1, 64))
			return p, nil
		}
	}
	return price{}, fmt.Errorf("missing exchange rate %s to %s on %s", p.currency, in.Settings.Currency, day)
}

// fullyRefunded: successful refunds cover the whole invoice amount (a refund without an
// amount is a full refund, §3.1).
func fullyRefunded(inv Invoice) bool {
	var total, refunded int64
	for _, it := range inv.LineItems {
		total += it.AmountInCents
	}
	for _, t := range inv.Transactions {
		if t.Type != TransactionRefund || t.Result != ResultSuccessful {
			continue
		}
		if t.AmountInCents == nil {
			return true
		}
		refunded += *t.AmountInCents
	}
	return total > 0 && refunded >= total
}
