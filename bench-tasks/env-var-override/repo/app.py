from server_config import host, port

if __name__ == "__main__":
    print(f"serving on http://{host()}:{port()}")
