package ddbmeter

import (
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The emulator's ConsumedCapacity is a placeholder, so benchmarks that must state
// what a workload costs on DynamoDB compute write units from the items themselves,
// with DynamoDB's rules (billing.go).

// ItemSize is DynamoDB's size of an item: attribute names plus values.
func ItemSize(item map[string]types.AttributeValue) int {
	n := 0
	for k, v := range item {
		n += len(k) + valueSize(v)
	}
	return n
}

// valueSize: strings by length, numbers about one byte per two digits plus one,
// lists and maps 3 bytes plus 1 per element (and the keys of maps).
func valueSize(v types.AttributeValue) int {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return len(x.Value)
	case *types.AttributeValueMemberN:
		return (len(x.Value)+1)/2 + 1
	case *types.AttributeValueMemberB:
		return len(x.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range x.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range x.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range x.Value {
			n += 1 + len(k) + valueSize(e)
		}
		return n
	}
	return 0
}

// gsiKeys are the partition keys of the table's global secondary indexes.
var gsiKeys = []string{"GSI1PK", "GSI2PK"}

// WriteUnits is what one write of item costs, its indexes included.
func WriteUnits(item map[string]types.AttributeValue) float64 {
	w := units(item)
	for _, g := range gsiKeys {
		if _, ok := item[g]; ok {
			w += units(item)
		}
	}
	return w
}

// WriteRecorder (its zero value is ready) adds up the write units of the requests of
// the clients it is attached to, as DynamoDB bills them (billing.go).
type WriteRecorder struct {
	mu    sync.Mutex
	units float64
}

// Reset forgets the writes recorded so far.
func (w *WriteRecorder) Reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.units = 0
}

// Attach makes every client built from cfg afterwards report its writes.
func (w *WriteRecorder) Attach(cfg *aws.Config) {
	observeWrites(cfg, "ddbmeter-writes", func(cs []Charge) {
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, c := range cs {
			w.units += c.Units
		}
	})
}

// Units returns the write units recorded so far, indexes included.
func (w *WriteRecorder) Units() float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.units
}
