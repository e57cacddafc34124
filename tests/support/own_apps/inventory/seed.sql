INSERT INTO items (name, qty) VALUES ('anvil', 3), ('rope', 12), ('lantern', 5);
