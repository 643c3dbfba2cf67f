package tooleditor

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/tools"
)

// TestResultMetaIsBounded: the meta of a str_replace whose texts the
// provider left out (past the diff basis) says so instead of claiming an
// empty diff (contract §5.4a); a create has no hunk.
func TestResultMetaIsBounded(t *testing.T) {
	args := tools.Args{"path": "a.txt"}
	before := ""
	b, err := json.Marshal(resultMeta(args, result{Command: "str_replace", before: &before, omitted: true}))
	require.NoError(t, err)
	assert.JSONEq(t, `{"diffsOmitted":true}`, string(b))
	b, err = json.Marshal(resultMeta(args, result{Command: "create"}))
	require.NoError(t, err)
	assert.JSONEq(t, `{"diffs":[]}`, string(b))
	assert.Nil(t, resultMeta(args, result{Command: cmdView}))
}
