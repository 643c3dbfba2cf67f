package fslocal

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// settleForTest shortens dirSnapshotSettle to 50 ms (well past a clock
// tick) for one test.
func settleForTest(t *testing.T) {
	old := dirSnapshotSettle
	dirSnapshotSettle = 50 * time.Millisecond
	t.Cleanup(func() { dirSnapshotSettle = old })
}

// listNames lists d through ListEntries and returns the names and types,
// sorted by name.
func listNames(t *testing.T, p *Provider, d string) []string {
	t.Helper()
	es, err := p.ListEntries(context.Background(), fsapi.Target{Key: d, DisplayPath: d}, fsapi.ListOptions{})
	require.NoError(t, err)
	var out []string
	for _, e := range es {
		out = append(out, e.Name+":"+string(e.Type))
	}
	slices.Sort(out)
	return out
}

// osNames is listNames as os.ReadDir sees d (symlinks not followed, which
// the changes below never create).
func osNames(t *testing.T, d string) []string {
	t.Helper()
	des, err := os.ReadDir(d)
	require.NoError(t, err)
	var out []string
	for _, de := range des {
		typ := fsapi.TypeFile
		if de.IsDir() {
			typ = fsapi.TypeDirectory
		}
		out = append(out, de.Name()+":"+string(typ))
	}
	slices.Sort(out)
	return out
}

// TestDirSnapshotIsServedOnlyWhileUnchanged: a settled directory is read
// once and then served from its snapshot; each kind of change to its
// entries made right after the snapshot was taken (within the same clock
// tick) is seen by the next listing.
func TestDirSnapshotIsServedOnlyWhileUnchanged(t *testing.T) {
	settleForTest(t)
	p, w := confinedProvider(t)
	d := filepath.Join(w, "d")
	require.NoError(t, os.Mkdir(d, 0o755))
	for i := range 50 {
		require.NoError(t, os.WriteFile(filepath.Join(d, "f"+strconv.Itoa(i)), nil, 0o644))
	}
	changes := []func(){
		func() { require.NoError(t, os.WriteFile(filepath.Join(d, "new"), nil, 0o644)) },
		func() { require.NoError(t, os.Remove(filepath.Join(d, "f3"))) },
		func() { require.NoError(t, os.Rename(filepath.Join(d, "f4"), filepath.Join(d, "f4-renamed"))) },
		func() { require.NoError(t, os.Rename(filepath.Join(d, "f5"), filepath.Join(d, "f6"))) }, // over an entry
		func() { // same name, file becomes directory
			require.NoError(t, os.Remove(filepath.Join(d, "f7")))
			require.NoError(t, os.Mkdir(filepath.Join(d, "f7"), 0o755))
		},
		func() { require.NoError(t, os.Link(filepath.Join(d, "f8"), filepath.Join(d, "f8-link"))) },
		func() { require.NoError(t, os.Rename(filepath.Join(d, "f9"), filepath.Join(w, "moved-out"))) },
		func() { require.NoError(t, os.Chtimes(d, time.Unix(1, 0), time.Unix(1, 0))) }, // no entry change
	}
	for i, change := range changes {
		time.Sleep(2 * dirSnapshotSettle)
		first := listNames(t, p, d)
		assert.Equal(t, osNames(t, d), first, "change %d: the read", i)
		require.Len(t, p.dirs.m, 1, "change %d: a settled directory is remembered", i)
		assert.Equal(t, first, listNames(t, p, d), "change %d: the snapshot", i)
		assertServed(t, p, d)
		change()
		assert.Equal(t, osNames(t, d), listNames(t, p, d), "change %d: right after the change", i)
	}
}

// TestDirSnapshotNotTakenOfAFreshDirectory: a directory changed within the
// settle time is read on every listing, never remembered.
func TestDirSnapshotNotTakenOfAFreshDirectory(t *testing.T) {
	p, w := confinedProvider(t)
	d := filepath.Join(w, "d")
	require.NoError(t, os.Mkdir(d, 0o755))
	for i := range 20 {
		require.NoError(t, os.WriteFile(filepath.Join(d, "f"+strconv.Itoa(i)), nil, 0o644))
		assert.Equal(t, osNames(t, d), listNames(t, p, d))
	}
	assert.Empty(t, p.dirs.m)
}

// assertServed checks that a read of d returns its snapshot, not a read.
func assertServed(t *testing.T, p *Provider, d string) {
	t.Helper()
	fd, err := unix.Open(d, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	defer unix.Close(fd)
	got, err := p.dirs.readDir(fd)
	require.NoError(t, err)
	require.NotEmpty(t, got)
	for _, snap := range p.dirs.m {
		assert.Same(t, &snap.entries[0], &got[0], "the snapshot itself")
	}
}

// TestDirSnapshotsUnderConcurrentListings: listings running alongside
// changes never miss a change that finished before they started.
func TestDirSnapshotsUnderConcurrentListings(t *testing.T) {
	settleForTest(t)
	p, w := confinedProvider(t)
	d := filepath.Join(w, "d")
	require.NoError(t, os.Mkdir(d, 0o755))
	time.Sleep(2 * dirSnapshotSettle)
	stop := make(chan struct{})
	done := make(chan struct{})
	for range 3 {
		go func() {
			defer func() { done <- struct{}{} }()
			for {
				select {
				case <-stop:
					return
				default:
					_, err := p.ListEntries(context.Background(), fsapi.Target{Key: d, DisplayPath: d}, fsapi.ListOptions{})
					assert.NoError(t, err)
				}
			}
		}()
	}
	for i := range 10 {
		name := "f" + strconv.Itoa(i)
		require.NoError(t, os.WriteFile(filepath.Join(d, name), nil, 0o644))
		assert.Contains(t, listNames(t, p, d), name+":file")
		time.Sleep(dirSnapshotSettle + 10*time.Millisecond) // let a snapshot be taken
		assert.Equal(t, osNames(t, d), listNames(t, p, d))
	}
	close(stop)
	for range 3 {
		<-done
	}
}
