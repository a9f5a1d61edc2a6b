from inventory import Inventory

stock = Inventory()
stock.add("apple", 12)
stock.add("pear", 3)

if __name__ == "__main__":
    print(f"{stock.total()} pieces in stock")
