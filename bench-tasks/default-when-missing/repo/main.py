from pathlib import Path

from settings import load_settings

if __name__ == "__main__":
    print(load_settings(Path.home() / ".viewer.json"))
