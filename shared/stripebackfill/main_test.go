package stripebackfill_test

import (
	"os"
	"testing"

	"github.com/subsight/subsight/infra/testkit/stripemock"
	"github.com/subsight/subsight/infra/testkit/testenv"
)

func TestMain(m *testing.M) {
	code := m.Run()
	stripemock.Stop()
	testenv.Stop()
	os.Exit(code)
}
