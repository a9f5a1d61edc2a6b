"""The sandbox bash commands run in: bubblewrap on Linux, a Seatbelt profile on macOS."""
