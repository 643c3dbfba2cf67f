"""no-secrets: a dshhost guard (docs/plugin-protocol.md). It refuses writes and
edits whose arguments look like a secret, and any change of .env*, *.pem or
id_rsa* files, matched on the target's rel (or key outside the workspace)."""
import fnmatch, json, os, posixpath, re, sys

SECRETS = [(kind, re.compile(rx)) for kind, rx in [
    ("a private key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    ("an AWS access key id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("a GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{36,}|\bgithub_pat_\w{22,}"),
    ("a Slack token", r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    ("an API secret key", r"\bsk-[A-Za-z0-9_-]{20,}|\bsk_live_[A-Za-z0-9]{24,}"),  # OpenAI, Anthropic, Stripe
    ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}"),
]]
STRICT = os.environ.get("NO_SECRETS_STRICT") == "1"  # refuse what it cannot see
files = [".env*", "*.pem", "id_rsa*"]

def strings(v):
    if isinstance(v, str): yield v
    elif isinstance(v, dict): yield from (s for x in v.values() for s in strings(x))
    elif isinstance(v, list): yield from (s for x in v for s in strings(x))

def decide(method, p):
    t, op = p["target"], method.split("/")[1].split("-")[0]  # "write" or "edit"
    name = posixpath.basename(t["rel"] or t["key"] or "")
    for pattern in files:
        if fnmatch.fnmatchcase(name, pattern):
            return deny(f'cannot {op} "{t["path"]}": {pattern} files are protected by no-secrets', "SECRET_FILE")
    if p.get("argumentsOmitted") and STRICT:
        return deny(f'cannot {op} "{t["path"]}": the change is too large to check for secrets', "SECRET_UNCHECKED")
    for kind, rx in SECRETS:
        if any(rx.search(s) for s in strings(p.get("arguments"))):
            return deny(f'cannot {op} "{t["path"]}": the change contains what looks like {kind}', "SECRET_CONTENT")
    return {"decision": "next"}

def deny(message, code):
    return {"decision": "deny", "message": message, "code": code}

for line in sys.stdin:
    msg = json.loads(line)
    method, params = msg.get("method"), msg.get("params") or {}
    if method == "initialize":
        files = params["settings"].get("files", files)
        result = {"name": "no-secrets", "version": "1.0.0", "events": ["fs/write-intent", "fs/edit-intent"], "tools": []}
    elif method in ("fs/write-intent", "fs/edit-intent"):
        result = decide(method, params)
    else:
        continue  # a notification, or something newer than this guard
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
