package apitest

func UUIDsOf(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(map[string]any)["uuid"].(string))
	}
	return out
}
