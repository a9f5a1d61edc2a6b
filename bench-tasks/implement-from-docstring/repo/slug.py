def slugify(title: str) -> str:
    """Turn a title into a URL slug.

    Lower-case it; every run of characters that are not ASCII letters or digits becomes
    one hyphen; no hyphen at the start or the end.

    >>> slugify("Hello, World!")
    'hello-world'
    >>> slugify("  Rust & Python 3.12  ")
    'rust-python-3-12'
    """
    raise NotImplementedError
