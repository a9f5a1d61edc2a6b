import sys

from users import create_user

if __name__ == "__main__":
    user = create_user(sys.argv[1], int(sys.argv[2]))
    print(f"welcome, {user.name}")
