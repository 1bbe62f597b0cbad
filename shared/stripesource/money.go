package stripesource

import "strings"

// Stripe gives amounts in the currency's smallest unit; import records count hundredths
// of a unit whatever the currency, which is what the engine's exchange rates assume.
// zeroDecimal and threeDecimal list the currencies whose smallest unit is not a hundredth
// (Stripe's list).
var (
	zeroDecimal = map[string]bool{
		"BIF": true, "CLP": true, "DJF": true, "GNF": true, "JPY": true, "KMF": true, "KRW": true,
		"MGA": true, "PYG": true, "RWF": true, "UGX": true, "VND": true, "VUV": true, "XAF": true,
		"XOF": true, "XPF": true,
	}
	threeDecimal = map[string]bool{"BHD": true, "JOD": true, "KWD": true, "OMR": true, "TND": true}
)

// currencyCode is the ISO code of a Stripe currency (Stripe writes it in lower case).
func currencyCode(c string) string { return strings.ToUpper(c) }

// cents converts an amount in the smallest unit of currency (an ISO code) to hundredths
// of a unit; thousandths are rounded half away from zero (Stripe only charges multiples
// of ten of them).
func cents(amount int64, currency string) int64 {
	switch {
	case zeroDecimal[currency]:
		return amount * 100
	case threeDecimal[currency]:
		if amount < 0 {
			return -((-amount + 5) / 10)
		}
		return (amount + 5) / 10
	}
	return amount
}
