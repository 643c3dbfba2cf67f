package config

import (
	"os"
	"testing"

	"github.com/knadh/koanf/parsers/yaml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDefaultTreeIsDefaultYAML: the built-in default deployment is exactly
// what the YAML parser reads from default.yaml (the documented default),
// and every call returns a fresh tree.
func TestDefaultTreeIsDefaultYAML(t *testing.T) {
	data, err := os.ReadFile("default.yaml")
	require.NoError(t, err)
	parsed, err := yaml.Parser().Unmarshal(data)
	require.NoError(t, err)
	assert.Equal(t, parsed, defaultTree())

	a := defaultTree()
	a["plugins"].([]any)[0].(map[string]any)["name"] = "changed"
	assert.Equal(t, "fslocal", defaultTree()["plugins"].([]any)[0].(map[string]any)["name"])
}
