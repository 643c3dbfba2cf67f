package conformance

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProjectCasesReplaceOnlyWithAReason: a project case named as a shared
// one replaces it in place when it says why, any other is added after the
// shared ones, and a replacement without a reason, or a reason without a
// shared case, is an error.
func TestProjectCasesReplaceOnlyWithAReason(t *testing.T) {
	shared := []byte(`[{"name":"a","note":"shared"},{"name":"b"}]`)
	cases, err := withProject(shared, []byte(`[{"name":"c"},{"name":"a","note":"ours","supersedes":"D24"}]`))
	require.NoError(t, err)
	require.Len(t, cases, 3)
	assert.Equal(t, []string{"a", "b", "c"}, []string{cases[0].Name, cases[1].Name, cases[2].Name})
	assert.Equal(t, "ours", cases[0].Note)

	_, err = withProject(shared, []byte(`[{"name":"a"}]`))
	assert.EqualError(t, err, `project case "a" has a shared case's name but no supersedes reason`)
	_, err = withProject(shared, []byte(`[{"name":"z","supersedes":"x"}]`))
	assert.EqualError(t, err, `project case "z" supersedes no shared case`)
}
