package toolfs

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadManysDefaultTextsAreInTheDocs: docs/files.md gives read_many's
// description and schema with the defaults, byte for byte.
func TestReadManysDefaultTextsAreInTheDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/files.md")
	require.NoError(t, err)
	cfg := DefaultConfig()
	assert.Contains(t, string(doc), readManyDescription(cfg.ReadManyMaxFiles, cfg.ReadMaxBytes))
	assert.Contains(t, string(doc), string(readManyParameters(cfg.ReadManyMaxFiles)))
}
