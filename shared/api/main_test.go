package api_test

import (
	"testing"

	"github.com/subsight/subsight/infra/testenv"
)

// TestMain runs the package's tests against one moto server (infra/testenv).
func TestMain(m *testing.M) { testenv.Main(m) }
