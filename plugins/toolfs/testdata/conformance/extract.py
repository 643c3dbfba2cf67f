#!/usr/bin/env python3
"""Extract the read and list calls of the conformance cases that depend only
on a file's text or a directory's entries, for toolfs's pure rendering tests.

Usage: extract.py path/to/cases.json   (writes read.json and list.json here)

Each read call becomes {name, spec, text_b64, path, expect}; each list call
{name, max, offset, path_b64, entries: [{name_b64, type}], expect}. The
workspace W is "/w". The provider's part (BOM removal, symlink following,
entry types) is modelled here; calls that fail before the window or listing
(validation, not found, binary, ...) and calls after a mutating call are
left out.
"""
import base64, json, os, posixpath, sys

W = "/w"
DEFAULTS = {"listMaxEntries": 200, "readLimit": 2000, "readMaxLineLength": 2000, "readMaxBytes": 51200}


def build_tree(setup):
    tree = {b"": ("dir", None)}  # path (bytes, relative) -> (kind, payload)
    def add_parents(p):
        parts = p.split(b"/")
        for i in range(1, len(parts)):
            tree.setdefault(b"/".join(parts[:i]), ("dir", None))
    for op in setup:
        p = base64.b64decode(op["path_base64"]) if "path_base64" in op else op["path"].encode()
        add_parents(p)
        if op["op"] == "file":
            data = base64.b64decode(op["base64"]) if "base64" in op else op["text"].encode()
            tree[p] = ("file", data)
        elif op["op"] == "dir":
            tree[p] = ("dir", None)
        elif op["op"] == "symlink":
            tree[p] = ("symlink", op["target"].replace("{{W}}", W).encode())
        elif op["op"] == "hardlink":
            tree[p] = tree[op["target"].encode()]
        elif op["op"] == "fifo":
            tree[p] = ("fifo", None)
        else:
            return None
    tree[b""] = ("dir", None)
    return tree


def resolve(tree, rel, depth=0):
    """Follow symlinks along rel (bytes, relative to W); return the real
    relative path or None when missing."""
    if depth > 20:
        return None
    cur = b""
    for part in [x for x in rel.split(b"/") if x not in (b"", b".")]:
        if part == b"..":
            cur = cur.rsplit(b"/", 1)[0] if b"/" in cur else b""
            continue
        nxt = cur + b"/" + part if cur else part
        if nxt not in tree:
            return None
        kind, payload = tree[nxt]
        if kind == "symlink":
            target = payload
            if target.startswith(W.encode() + b"/"):
                target = target[len(W) + 1:]
            elif target.startswith(b"/"):
                return None
            else:
                target = (cur + b"/" + target) if cur else target
            nxt = resolve(tree, target, depth + 1)
            if nxt is None:
                return None
        cur = nxt
    return cur


def rel_of(arg):
    arg = arg.replace("{{W}}", W)
    full = posixpath.normpath(arg if arg.startswith("/") else W + "/" + arg)
    if full == W:
        return full, b""
    if not full.startswith(W + "/"):
        return None, None
    return full, full[len(W) + 1:].encode()


def list_entries(tree, real):
    prefix = real + b"/" if real else b""
    out = []
    for p, (kind, _) in tree.items():
        if p == b"" or not p.startswith(prefix) or b"/" in p[len(prefix):]:
            continue
        name = p[len(prefix):]
        if kind == "symlink":
            r = resolve(tree, p)
            kind = tree[r][0] if r is not None else "other"
        typ = {"file": "file", "dir": "directory"}.get(kind, "other")
        out.append({"name_b64": base64.b64encode(name).decode(), "type": typ})
    return out


def main():
    cases = json.load(open(sys.argv[1]))
    reads, lists = [], []
    for c in cases:
        tree = build_tree(c["setup"])
        if tree is None:
            continue
        cfg = dict(DEFAULTS, **(c.get("toolfs") or {}))
        for i, (call, exp) in enumerate(zip(c["calls"], c["expect"])):
            if call["tool"] not in ("read", "list"):
                break  # a later call may see a changed tree
            args = call.get("args")
            if not isinstance(args, dict):
                continue
            text = exp["text"].replace("{{W}}", W)
            if exp["isError"] and not text.startswith("Error: offset "):
                continue
            off = args.get("offset", 1)
            if not isinstance(off, (int, float)) or isinstance(off, bool) or off < 1 or off != int(off):
                continue
            name = "%s #%d" % (c["name"], i + 1)
            if call["tool"] == "read":
                fp = args.get("file_path")
                lim = args.get("limit", cfg["readLimit"])
                if not isinstance(fp, str) or not isinstance(lim, (int, float)) or isinstance(lim, bool) or lim < 1 or lim != int(lim) or lim > cfg["readLimit"]:
                    continue
                full, rel = rel_of(fp)
                if full is None:
                    continue
                real = resolve(tree, rel)
                if real is None or tree[real][0] != "file":
                    continue
                data = tree[real][1]
                if data.startswith(b"\xef\xbb\xbf"):
                    data = data[3:]
                if b"\x00" in data[:8192]:
                    continue
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError:
                    continue
                reads.append({"name": name, "offset": off, "limit": int(lim),
                              "maxLineLength": cfg["readMaxLineLength"], "maxBytes": cfg["readMaxBytes"],
                              "text_b64": base64.b64encode(data).decode(), "path": full, "expect": text})
            else:
                p = args.get("path", ".")
                if not isinstance(p, str) or p.strip() == "":
                    continue
                full, rel = rel_of(p)
                if full is None:
                    continue
                real = resolve(tree, rel)
                if real is None or tree[real][0] != "dir":
                    continue
                lists.append({"name": name, "offset": off, "max": cfg["listMaxEntries"],
                              "path": full, "entries": list_entries(tree, real), "expect": text})
    here = os.path.dirname(os.path.abspath(__file__))
    for fname, data in (("read.json", reads), ("list.json", lists)):
        with open(os.path.join(here, fname), "w") as f:
            json.dump(data, f, ensure_ascii=False, indent=1)
            f.write("\n")
    print("read calls:", len(reads), "list calls:", len(lists))


main()
