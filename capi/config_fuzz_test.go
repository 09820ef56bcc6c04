package main

import "testing"

// FuzzParseFitConfig: whatever the text, nsvm_fit's configuration parser
// either refuses it with an error or returns a configuration that
// validates; it never panics.
func FuzzParseFitConfig(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `{"C": 1, "algorithm": "smo", "gamma": 0.5}`, `{"input_shape": [1, 28, 28], "arch": "conv(8,3),relu,flatten"}`,
		`{"budget": 3.5, "spelling": "python"}`, `{"feature_names": ["a", "b"], "label_name": "y"}`,
		`{"momentum": 0.5, "algorithm": "nsvm4"}`, `{"class_weight": "0:2,1:1"}`, `{"max_memory": 1e9, "seed": 18446744073709551615}`,
		`{"mu": 2, "algorithm": "nsvm3"}`, `{"C": null}`, `{"C": 1e999}`, `[1]`, `{"a":1} {"b":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		c, names, err := parseFitConfig(text)
		if err != nil {
			if c != nil || names != nil {
				t.Fatalf("an error (%v) with a configuration", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted %q, which does not validate: %v", text, err)
		}
	})
}
