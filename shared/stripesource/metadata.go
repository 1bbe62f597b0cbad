package stripesource

import (
	"maps"
	"slices"

	"github.com/subsight/subsight/shared/model"
)

// MaxMetadataKeys is Stripe's limit of metadata keys on one object; a snapshot holding
// more (none should) has its keys beyond the first MaxMetadataKeys in key order refused.
const MaxMetadataKeys = 50

// CustomerAttributes are a Stripe customer's metadata as custom attributes of the
// customer: String values by key.
type CustomerAttributes struct {
	CustomerExternalID string
	// Set are the metadata's keys and values.
	Set map[string]model.AttrValue
	// Removed are the keys a change removed from the metadata, with the value they had:
	// the attribute goes only while it still holds that value (this source set it).
	Removed map[string]model.AttrValue
	// Refused are the keys whose key or value a custom attribute cannot hold (a key other
	// than letters, digits and underscores; a value over model.MaxAttrStringLength).
	Refused []string
}

// Metadata maps a customer's metadata; previous is the metadata of a
// customer.updated event's previous attributes (nil otherwise), where a key with a value
// and absent from metadata was removed.
func Metadata(customerID string, metadata map[string]string, previous map[string]any) CustomerAttributes {
	out := CustomerAttributes{CustomerExternalID: customerID, Set: map[string]model.AttrValue{}, Removed: map[string]model.AttrValue{}}
	for i, k := range slices.Sorted(maps.Keys(metadata)) {
		v, ok := attr(k, metadata[k])
		if !ok || i >= MaxMetadataKeys {
			out.Refused = append(out.Refused, k)
			continue
		}
		out.Set[k] = v
	}
	for _, k := range slices.Sorted(maps.Keys(previous)) {
		old, isString := previous[k].(string)
		if _, still := metadata[k]; still || !isString {
			continue
		}
		if v, ok := attr(k, old); ok {
			out.Removed[k] = v
		}
	}
	return out
}

func attr(key, value string) (model.AttrValue, bool) {
	if !model.ValidAttrKey(key) {
		return model.AttrValue{}, false
	}
	v, err := model.CoerceAttrValue(model.AttrString, value)
	return v, err == nil
}
