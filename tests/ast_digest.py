"""The source of `digest(v)`, a sha256 over every field of an AST (attrs classes, tuples, plain
values), for tests that compare the ASTs other processes build: a child runs this text
(`python -c ...`) and prints the digest."""
DIGEST_DEF = (
    "import hashlib, attrs\n"
    "def dump(v):\n"
    "    if attrs.has(type(v)):\n"
    "        return type(v).__name__ + '(' + ','.join(dump(getattr(v, f.name)) for f in "
    "attrs.fields(type(v))) + ')'\n"
    "    return '[' + ','.join(dump(x) for x in v) + ']' if isinstance(v, tuple) "
    "else repr(v)\n"
    "def digest(v):\n"
    "    return hashlib.sha256(dump(v).encode()).hexdigest()\n")
