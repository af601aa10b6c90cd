"""`scenesync --menu`: a restaurant's own menu file is served; a bad one stops the start with a
message naming the entry and the field. No browser needed: the command and HTTP only."""
import json
import os
import subprocess
import tempfile
import urllib.request

from conftest import SERVER, Server


def write_menu(items):
    path = os.path.join(tempfile.mkdtemp(prefix="scenesync-menu-"), "menu.json")
    with open(path, "w") as f:
        json.dump({"items": items}, f)
    return path


def dish(id, name, category, price=5.5, prep=7):
    return {"id": id, "name": name, "description": f"{name}, as the house makes it.", "price": price,
            "category": category, "estimated_prep_time": prep}


def test_a_bad_menu_file_stops_the_start_naming_the_entry_and_the_field():
    path = write_menu([dish(1, "Pho", "soups"), {**dish(2, "Ramen", "soups"), "price": "cheap"}])
    data = tempfile.mkdtemp(prefix="scenesync-e2e-")
    result = subprocess.run([SERVER, "--port", "0", "--data-dir", data, "--menu", path],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert 'Menu entry 2 (id 2), field "price": must be a number, not a string.' in result.stderr
    assert path in result.stderr


def test_a_restaurants_own_menu_is_served():
    path = write_menu([dish(7, "Pho", "soups", 11.5), dish(8, "Mochi", "desserts", 4, 2)])
    server = Server(args=["--menu", path])
    server.start()
    try:
        with urllib.request.urlopen(server.url + "/categories") as response:
            assert json.load(response) == {"categories": ["soups", "desserts"]}
        with urllib.request.urlopen(server.url + "/menu") as response:
            items = json.load(response)["items"]
        assert [(item["id"], item["name"], item["price"]) for item in items] == [(7, "Pho", 11.5), (8, "Mochi", 4)]
        # A dish without a picture of its own gets the plate.
        with urllib.request.urlopen(server.url + "/images/7.png") as response:
            assert response.headers["Content-Type"] == "image/png"
            assert response.read(8) == b"\x89PNG\r\n\x1a\n"
    finally:
        server.close()
