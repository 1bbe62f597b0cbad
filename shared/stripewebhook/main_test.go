package stripewebhook_test

import (
	"testing"

	"github.com/subsight/subsight/infra/testkit/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
