package predict

import (
	"os"

	"testing"

	"github.com/nsvm-go/nsvm/beam/beamio"

	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
)

// The tests run their pipelines on prism, Beam's local runner, in this
// process.
func TestMain(m *testing.M) {
	beamlog.LogLevel = "warn"       // not prism's report of every job
	restore := beamio.PrivateTemp() // nothing left in the temporary directory
	code := ptest.MainRet(m)
	restore()
	os.Exit(code)
}
