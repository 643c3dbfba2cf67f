package toolsearch_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fslocal"
	"github.com/dsh-go/dsh/plugins/tools"
)

// TestLongSearchesReportFilesSearched: a grep or glob that runs longer than
// a second reports the files searched so far, at most every 250 ms (the
// walk is slowed on synctest's clock: 20 ms a visit, 200 files).
func TestLongSearchesReportFilesSearched(t *testing.T) {
	for tool, args := range map[string]string{"glob": `{"pattern":"*.txt"}`, "grep": `{"pattern":"hit"}`} {
		t.Run(tool, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				reg, w := mountWith(t, func(p *fslocal.Provider) fsapi.FileSystem { return slow{Provider: p, delay: 20 * time.Millisecond} }, map[string]any{"timeoutMs": 60000})
				files := map[string]string{}
				for i := range 200 {
					files[filepath.Join("d", fmt.Sprintf("%03d.txt", i))] = "hit\n"
				}
				writeFiles(t, w, files)
				type report struct {
					at   time.Duration
					done float64
				}
				var got []report
				start := time.Now()
				exec := &tools.Exec{Conv: &tools.Conversation{ID: "s", Cwd: w}, Report: func(done, total float64, message string) {
					assert.Zero(t, total)
					assert.Equal(t, "files searched", message)
					got = append(got, report{time.Since(start), done})
				}}
				res := reg.Execute(t.Context(), tool, json.RawMessage(args), exec)
				require.False(t, res.IsError, res.Text())
				require.GreaterOrEqual(t, len(got), 3, "about 3 s past the first second")
				assert.GreaterOrEqual(t, got[0].at, time.Second, "nothing in the first second")
				for i := 1; i < len(got); i++ {
					assert.GreaterOrEqual(t, got[i].at-got[i-1].at, 250*time.Millisecond, "at most every 250 ms")
					assert.Greater(t, got[i].done, got[i-1].done)
				}
				assert.LessOrEqual(t, got[len(got)-1].done, float64(200))
			})
		})
	}
}
