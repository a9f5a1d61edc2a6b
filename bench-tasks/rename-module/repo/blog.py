from util import slug


def post_url(title: str) -> str:
    return f"/posts/{slug(title)}/"
