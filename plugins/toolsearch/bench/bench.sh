#!/bin/sh
# Whole-process benchmarks of glob and grep against ripgrep on a copy of the
# Go source tree (see README.md). Usage, from the repository root:
#
#   plugins/toolsearch/bench/bench.sh [WORKDIR]
#
# Needs rg and hyperfine (apt-get install -y ripgrep hyperfine) and GNU time
# (/usr/bin/time). WORKDIR (default: a fresh temporary directory) receives
# the dshhost binary, the tree copy and the 60 MB file.
set -eu
command -v rg >/dev/null || { echo "bench.sh: ripgrep (rg) is not installed" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "bench.sh: hyperfine is not installed" >&2; exit 1; }
work=${1:-$(mktemp -d)}
mkdir -p "$work"
go build -o "$work/dshhost" ./cmd/dshhost
tree="$work/gosrc"
[ -d "$tree" ] || cp -r "$(go env GOROOT)/src" "$tree"
dsh="$work/dshhost"
echo "tree: $tree ($(find "$tree" -type f | wc -l) files, $(du -sh "$tree" | cut -f1))"

hyperfine -N --warmup 3 --runs 20 --export-markdown "$work/literal.md" \
  "$dsh call --workspace $tree grep '{\"pattern\":\"func NewReplacer\"}'" \
  "rg -n --no-config 'func NewReplacer' $tree"
hyperfine -N --warmup 3 --runs 20 --export-markdown "$work/regex.md" \
  "$dsh call --workspace $tree grep '{\"pattern\":\"errors\\\\.New\\\\(\\\"[a-z]+ overflow\"}'" \
  "rg -n --no-config 'errors\\.New\\(\"[a-z]+ overflow' $tree"
hyperfine -N --warmup 3 --runs 20 --export-markdown "$work/glob.md" \
  "$dsh call --workspace $tree glob '{\"pattern\":\"*_test.go\"}'" \
  "rg --files --no-config --sort modified -g '*_test.go' $tree"

echo "peak RSS of a grep over the tree (pattern func, stops at maxKept):"
/usr/bin/time -f "  %M KB, %e s" "$dsh" call --workspace "$tree" grep '{"pattern":"func"}' >/dev/null
echo "peak RSS of a grep over the tree (a rare literal, every file searched):"
/usr/bin/time -f "  %M KB, %e s" "$dsh" call --workspace "$tree" grep '{"pattern":"func NewReplacer"}' >/dev/null

big="$work/big"
mkdir -p "$big"
[ -f "$big/line.txt" ] || { head -c 62914560 /dev/zero | tr '\0' 'a'; printf 'needle\n'; } > "$big/line.txt"
echo "a 60 MB single-line file:"
/usr/bin/time -f "  %M KB, %e s" "$dsh" call --workspace "$big" grep '{"pattern":"needle"}' | cut -c1-80 | head -4
