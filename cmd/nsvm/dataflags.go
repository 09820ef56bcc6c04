package main

import (
	"errors"
	"fmt"

	"github.com/nsvm-go/nsvm/data"
)

// dataFlags are the flags that say where data come from (data.Flags) and
// what the command knows of them already: a model's width and columns,
// train's --fill-missing and --weight-col, predict's --keep.
type dataFlags struct {
	data.Flags
	base data.OpenOptions
}

// options maps the flags to data.OpenOptions; a value they refuse is a
// usage error.
func (d *dataFlags) options(cmd string) (data.OpenOptions, error) {
	if d.Path == "" {
		return d.base, usagef("nsvm %s: --data is required", cmd)
	}
	o, err := d.Options(d.base)
	var fe *data.FlagError
	if errors.As(err, &fe) {
		return o, usagef("nsvm %s: %s", cmd, fe.Msg)
	}
	return o, err
}

// load reads and validates the data set the flags name: rows without
// labels (Y nil) for predict and data convert, labelled rows for the
// other commands.
func (d *dataFlags) load(cmd string) (*data.Dataset, error) {
	opt, err := d.options(cmd)
	if err != nil {
		return nil, err
	}
	ds, err := data.Open(d.Path, opt)
	if err != nil {
		return nil, data.FlagHint(err)
	}
	validate := ds.Validate
	if cmd == "predict" || cmd == "data convert" {
		validate = ds.ValidateInputs
	}
	if err := validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Path, err)
	}
	return ds, nil
}
