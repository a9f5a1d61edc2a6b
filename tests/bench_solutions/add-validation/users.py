"""Accounts of the forum."""

from dataclasses import dataclass


@dataclass
class User:
    name: str
    age: int


def create_user(name: str, age: int) -> User:
    if not name.strip():
        raise ValueError("a user needs a name")
    if not 13 <= age <= 120:
        raise ValueError(f"age {age} is not between 13 and 120")
    return User(name.strip(), age)
