import Foundation
import Restaurant
import Testing

struct MenuTests {
    @Test func theStandardMenuHasTheCoursesSixCategoriesEachWithDishes() throws {
        let menu = try Menu.standard()
        #expect(menu.categories == ["appetizers", "salads", "soups", "entrees", "desserts", "sandwiches"])
        #expect(menu.items.count >= 18)
        for category in menu.categories {
            #expect(menu.items(in: category).count >= 3, "\(category)")
        }
        for item in menu.items {
            #expect(item.description.count >= 20, "\(item.name) has a real description")
            #expect(item.price > 0 && item.estimatedPrepTime > 0)
        }
        #expect(Set(menu.items.map(\.id)).count == menu.items.count)
    }

    @Test func everyStandardDishHasItsOwnPicture() throws {
        let menu = try Menu.standard()
        let images = try #require(DishImages.standard())
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        for item in menu.items {
            #expect(images.fileName(for: item.id) == "\(item.id).png")
            #expect(Array(try images.data(for: item.id).prefix(8)) == signature)
        }
        #expect(images.fileName(for: 9_999) == DishImages.placeholder)
        #expect(Array(try images.data(for: 9_999).prefix(8)) == signature)
    }

    @Test func aMenuFileReadsInTheCourseServersShape() throws {
        let json = #"{"items": [{"id": 7, "name": "Pho", "description": "Broth.", "price": 11.5, "category": "soups", "estimated_prep_time": 14}]}"#
        let menu = try Menu(json: Data(json.utf8))
        #expect(menu.items == [MenuItem(id: 7, name: "Pho", description: "Broth.", price: 11.5, category: "soups", estimatedPrepTime: 14)])
        let bare = try Menu(json: Data(#"[{"id": 7, "name": "Pho", "description": "", "price": 11, "category": "soups", "estimated_prep_time": 14}]"#.utf8))
        #expect(bare.item(7)?.price == 11)
    }

    static let badFiles: [(json: String, error: MenuFileError)] = [
        ("{", .notJSON(reason: "")),
        (#"{"dishes": []}"#, .notAMenu(reason: #"it has no "items"."#)),
        (#""menu""#, .notAMenu(reason: "it holds a string.")),
        (#"{"items": []}"#, .empty),
        (#"{"items": [3]}"#, .invalidField(entry: 1, id: nil, field: "", problem: "the entry must be an object, not an integer.")),
        (#"{"items": [{"name": "Pho", "description": "", "price": 1, "category": "soups", "estimated_prep_time": 5}]}"#,
         .invalidField(entry: 1, id: nil, field: "id", problem: "is missing.")),
        (#"{"items": [{"id": 1, "name": "A", "description": "", "price": 1, "category": "soups", "estimated_prep_time": 5}, {"id": 2, "name": "Pho", "description": "", "price": "cheap", "category": "soups", "estimated_prep_time": 5}]}"#,
         .invalidField(entry: 2, id: 2, field: "price", problem: "must be a number, not a string.")),
        (#"{"items": [{"id": 1, "name": "Pho", "description": "", "price": -1, "category": "soups", "estimated_prep_time": 5}]}"#,
         .invalidField(entry: 1, id: 1, field: "price", problem: "must be a number of dollars from 0 to 100000, not -1.0.")),
        (#"{"items": [{"id": 1, "name": " ", "description": "", "price": 1, "category": "soups", "estimated_prep_time": 5}]}"#,
         .invalidField(entry: 1, id: 1, field: "name", problem: "must not be empty.")),
        (#"{"items": [{"id": 1, "name": "Pho", "description": "", "price": 1, "category": "soups", "estimated_prep_time": 2.5}]}"#,
         .invalidField(entry: 1, id: 1, field: "estimated_prep_time", problem: "must be a whole number, not a number with a fraction or an exponent.")),
        (#"{"items": [{"id": 1, "name": "Pho", "description": "", "price": 1, "category": "soups", "estimated_prep_time": 0}]}"#,
         .invalidField(entry: 1, id: 1, field: "estimated_prep_time", problem: "must be a whole number of minutes from 1 to 1440, not 0.")),
        (#"{"items": [{"id": 1, "name": "Pho", "description": "", "price": 1, "category": true, "estimated_prep_time": 4}]}"#,
         .invalidField(entry: 1, id: 1, field: "category", problem: "must be a string, not a Boolean.")),
        (#"{"items": [{"id": 4, "name": "A", "description": "", "price": 1, "category": "soups", "estimated_prep_time": 5}, {"id": 4, "name": "B", "description": "", "price": 1, "category": "soups", "estimated_prep_time": 5}]}"#,
         .duplicateID(4, entries: 0, 1)),
    ]

    @Test(arguments: badFiles.indices)
    func aBadMenuFileIsRefusedNamingTheEntryAndTheField(index: Int) {
        let (json, expected) = Self.badFiles[index]
        #expect {
            try Menu(json: Data(json.utf8))
        } throws: { error in
            guard let error = error as? MenuFileError else { return false }
            if case .notJSON = expected, case .notJSON = error { return true }
            return error == expected
        }
    }

    @Test func aMissingMenuFileSaysWhichFile() {
        #expect {
            try Menu(contentsOf: URL(fileURLWithPath: "/nonexistent/menu.json"))
        } throws: { error in
            guard case let .unreadable(path, _)? = error as? MenuFileError else { return false }
            return path == "/nonexistent/menu.json"
        }
    }

    @Test func pricesPrintAsAMenuPrintsThem() {
        #expect(Money.format(cents: 900) == "$9.00")
        #expect(Money.format(cents: 1_205) == "$12.05")
        #expect(Money.format(cents: 123_450) == "$1,234.50")
        #expect(Money.format(cents: 100_000_000) == "$1,000,000.00")
        #expect(Money.format(cents: 0) == "$0.00")
        #expect(MenuItem(id: 1, name: "A", description: "", price: 7.25, category: "x", estimatedPrepTime: 1).priceInCents == 725)
    }
}
