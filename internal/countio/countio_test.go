package countio

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	var buf bytes.Buffer
	w := &Writer{W: &buf}
	io.WriteString(w, "héllo")
	io.WriteString(w, ", world")
	if w.N != int64(buf.Len()) || w.N != 13 {
		t.Errorf("writer counted %d, wrote %d", w.N, buf.Len())
	}
	r := &Reader{R: strings.NewReader(buf.String())}
	b, err := io.ReadAll(io.LimitReader(r, 4))
	if err != nil || r.N != 4 || len(b) != 4 {
		t.Errorf("reader counted %d for %d bytes read (%v)", r.N, len(b), err)
	}
}
