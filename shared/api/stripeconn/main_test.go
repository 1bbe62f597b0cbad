package stripeconn_test

import (
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
)

// TestMain runs the package's tests against one moto server (infra/testkit/testenv).
func TestMain(m *testing.M) { testenv.Main(m) }
