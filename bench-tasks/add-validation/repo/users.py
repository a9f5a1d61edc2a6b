"""Accounts of the forum."""

from dataclasses import dataclass


@dataclass
class User:
    name: str
    age: int


def create_user(name: str, age: int) -> User:
    return User(name.strip(), age)
