package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/nsvm-go/nsvm"
	"github.com/nsvm-go/nsvm/internal/errmsg"
	"github.com/nsvm-go/nsvm/search"
)

// parseFitConfig reads nsvm_fit's configuration: a JSON object whose keys
// are the training parameters' (search.Params' Key: FitConfig's fields in
// snake_case, named as nsvm train's flags; budget in seconds), and two keys
// that are not FitConfig's — feature_names and label_name, the names of the
// columns of dense or sparse rows and of the labels (a DataFrame's and a
// Series'), which the model records as nsvm train records a CSV file's
// header — and spelling, "key" (default) or "python", the names its errors
// give the fields. A key left out (or null) leaves its field at its zero value,
// "choose for me", so that "{}" (or empty text) trains what nsvm train with
// no flag trains. An unknown key is an error, and so is a value its
// parameter refuses: a *nsvm.ConfigError, whose field the message spells
// as its key.
func parseFitConfig(text []byte) (*nsvm.FitConfig, *dataNames, error) {
	c, names := &nsvm.FitConfig{}, &dataNames{}
	if len(bytes.TrimSpace(text)) == 0 {
		return c, names, nil
	}
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(text))
	if err := dec.Decode(&obj); err != nil {
		return nil, nil, badConfig("configuration: %v", err)
	}
	if dec.More() {
		return nil, nil, badConfig("configuration: more than one JSON value")
	}
	spelling := "key"
	if raw, ok := obj["spelling"]; ok {
		// Read first: the errors of the other keys use it.
		if json.Unmarshal(raw, &spelling) != nil {
			spelling = "key"
		}
	}
	keys := slices.Sorted(maps.Keys(obj)) // the first error is the same every time
	for _, k := range keys {
		raw := obj[k]
		var err error
		switch k {
		case "feature_names":
			err = json.Unmarshal(raw, &names.FeatureNames)
		case "label_name":
			err = json.Unmarshal(raw, &names.LabelName)
		case "spelling":
			err = json.Unmarshal(raw, &spelling)
			if err == nil && spelling != "key" && spelling != "python" {
				err = badConfig("configuration: unknown spelling %q (want key or python)", spelling)
			}
		default:
			p := search.ParamByKey(k)
			if p == nil {
				return nil, nil, badConfig("configuration: unknown key %q", k)
			}
			err = p.SetJSON(c, raw)
		}
		if err != nil {
			return nil, nil, spelled(err, spelling)
		}
	}
	if err := c.Validate(); err != nil {
		return nil, nil, spelled(err, spelling)
	}
	return c, names, nil
}

// dataNames are the names a configuration gives the data's columns and
// labels.
type dataNames struct {
	FeatureNames []string
	LabelName    string
}

// badConfig returns an error wrapping nsvm.ErrBadConfig.
func badConfig(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{nsvm.ErrBadConfig}, args...)...)
}

// spelled words a *nsvm.ConfigError with the fields spelled as their
// configuration keys, or (spelling "python") as the Python estimators'
// parameters; other errors are returned as they are.
func spelled(err error, spelling string) error {
	var ce *nsvm.ConfigError
	if !errors.As(err, &ce) {
		return err
	}
	spell := func(field string) string {
		p := search.ParamByField(field)
		switch {
		case p == nil:
			return field
		case spelling == "python" && p.Python != "":
			return p.Python
		}
		return p.Key
	}
	return errmsg.Reword("nsvm: bad configuration: "+ce.Text(spell), ce)
}

// continueJSON is the JSON form of nsvm.ContinueConfig that nsvm_continue
// takes (its fields in snake_case; a key left out keeps the zero value:
// continue as the model's own training chose), with the names of dense
// columns as configJSON has them.
type continueJSON struct {
	Budget       int      `json:"budget"`
	Maintenance  string   `json:"maintenance"`
	Lambda       float64  `json:"lambda"`
	Epochs       int      `json:"epochs"`
	Window       int      `json:"window"`
	Seed         uint64   `json:"seed"`
	FeatureNames []string `json:"feature_names"`
}

// parseContinueConfig reads nsvm_continue's configuration.
func parseContinueConfig(text []byte) (*nsvm.ContinueConfig, *continueJSON, error) {
	var j continueJSON
	if len(bytes.TrimSpace(text)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&j); err != nil {
			return nil, nil, badConfig("configuration: %v", err)
		}
	}
	c := &nsvm.ContinueConfig{Budget: j.Budget, Maintenance: j.Maintenance, Lambda: j.Lambda, Epochs: j.Epochs, Window: j.Window, Seed: j.Seed}
	if err := c.Validate(); err != nil {
		return nil, nil, err
	}
	return c, &j, nil
}

// configParams is search.Params as JSON, for the bindings.
func configParams() ([]byte, error) {
	type param struct {
		Field   string   `json:"field"`
		Flag    string   `json:"flag"`
		Key     string   `json:"key"`
		Python  string   `json:"python,omitempty"`
		Values  []string `json:"values,omitempty"`
		Tasks   string   `json:"tasks,omitempty"`
		Default string   `json:"default"`
		Doc     string   `json:"doc"`
	}
	out := make([]param, len(search.Params))
	for i, p := range search.Params {
		out[i] = param{p.Field, p.Flag, p.Key, p.Python, p.Values, p.Tasks, p.Default, p.Doc}
	}
	return json.Marshal(out)
}
