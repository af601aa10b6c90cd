import Foundation
import Logging
import LootLogger
import SceneSync
import SceneSyncSQLite
import SceneSyncTestSupport
import SceneSyncTesting
import Testing

struct ItemStoreTests {
    let logger = Logger(label: "test")
    static let missing = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!

    func open(_ storage: any SceneSyncStorage) async throws -> ItemStore {
        try await ItemStore(storage: storage, logger: logger)
    }

    @Test func aRandomItemLooksLikeTheBooks() async throws {
        let store = try await open(try SQLiteStorage.inMemory())
        for _ in 0..<50 {
            let item = try await store.createRandomItem(origin: nil)
            let words = item.name.split(separator: " ")
            #expect(words.count == 2)
            #expect(["Fluffy", "Rusty", "Shiny"].contains(String(words[0])))
            #expect(["Bear", "Spork", "Mac"].contains(String(words[1])))
            #expect((0..<100).contains(item.valueInDollars))
            #expect(item.serialNumber?.count == 8)
        }
        #expect(await store.items.count == 50)
    }

    /// A value may be typed as the list shows it, grouped by thousands.
    @Test(arguments: [("1,250", 1250), ("$1,250", 1250), ("1250", 1250), ("$1,000,000,000", 1_000_000_000), ("999", 999),
                      // Spaces and tabs around it are dropped, Unicode's space separators too.
                      (" 42 ", 42), ("\t$1,250\u{2003}", 1250), ("\u{00A0}7\u{3000}", 7), ("\u{200B}42\u{205F}", 42)])
    func aValueGroupedByThousandsIsRead(text: String, dollars: Int) throws {
        #expect(try ItemValidation.value(text) == dollars)
    }

    @Test func moneyIsShownGroupedByThousands() {
        #expect(Dollars.format(1_000_000_000) == "$1,000,000,000")
        #expect(Dollars.format(1250) == "$1,250")
        #expect(Dollars.format(7) == "$7")
        #expect(Dollars.grouped(10_000) == "10,000")
    }

    static let refusedUpdates: [(ItemChanges, ItemStoreError)] = [
        (ItemChanges(value: "abc"), .invalidValue("abc")),
        (ItemChanges(value: "-5"), .invalidValue("-5")),
        (ItemChanges(value: "1e99"), .invalidValue("1e99")),
        (ItemChanges(value: "4.5"), .invalidValue("4.5")),
        (ItemChanges(value: "1,25"), .invalidValue("1,25")),
        (ItemChanges(value: "1,0000"), .invalidValue("1,0000")),
        (ItemChanges(value: ",250"), .invalidValue(",250")),
        (ItemChanges(value: "1250,"), .invalidValue("1250,")),
        (ItemChanges(value: "1,,250"), .invalidValue("1,,250")),
        (ItemChanges(value: "1,000,000,001"), .invalidValue("1,000,000,001")),
        (ItemChanges(value: ""), .invalidValue("")),
        (ItemChanges(value: "1000000001"), .invalidValue("1000000001")),
        (ItemChanges(value: "99999999999999999999"), .invalidValue("99999999999999999999")),
        (ItemChanges(value: "٣"), .invalidValue("٣")),
        (ItemChanges(value: "4 2"), .invalidValue("4 2")),
        (ItemChanges(value: "42\n"), .invalidValue("42\n")),
        (ItemChanges(value: "\u{00A0} \t"), .invalidValue("\u{00A0} \t")),
        (ItemChanges(value: "\u{200C}42"), .invalidValue("\u{200C}42")),
        (ItemChanges(name: "   "), .emptyName),
        (ItemChanges(name: "\u{0}"), .emptyName),
        (ItemChanges(name: "\u{200D}"), .emptyName),
        (ItemChanges(name: "\u{FEFF}"), .emptyName),
        (ItemChanges(name: "\u{3164}"), .emptyName),
        (ItemChanges(name: "\u{115F}\u{1160}\u{FFA0}\u{2800}"), .emptyName),
        (ItemChanges(name: " \u{200B}\u{2060}\u{FE0F}\u{202E}\t\n"), .emptyName),
        (ItemChanges(name: "Rusty\u{0}Spork"), .unshowableName(.controlCharacter(0x0))),
        (ItemChanges(name: "Spork\u{1B}]0;PWNED\u{07}\u{1B}[2J"), .unshowableName(.controlCharacter(0x1B))),
        (ItemChanges(name: "Rusty\u{85}Spork"), .unshowableName(.controlCharacter(0x85))),
        (ItemChanges(name: "Rusty\u{FEFF}Spork"), .unshowableName(.invisibleCharacter(0xFEFF))),
        (ItemChanges(name: "Spork\u{202E}krops"), .unshowableName(.unpairedDirectionalControl(0x202E))),
        (ItemChanges(name: "Spork \u{E000}"), .unshowableName(.privateUseCharacter(0xE000))),
        (ItemChanges(name: "\u{301}\u{302}"), .emptyName),
        (ItemChanges(serialNumber: "A1\u{1B}[2J"), .unshowableSerialNumber(.controlCharacter(0x1B))),
        (ItemChanges(name: "a" + String(repeating: "\u{0301}", count: 30_000)), .nameTooLarge(bytes: 60_001)),
        (ItemChanges(serialNumber: "A" + String(repeating: "\u{0301}", count: 200)), .serialNumberTooLarge(bytes: 401)),
        (ItemChanges(name: String(repeating: "x", count: 201)), .nameTooLong(length: 201)),
        (ItemChanges(serialNumber: String(repeating: "7", count: 65)), .serialNumberTooLong(length: 65)),
        (ItemChanges(name: "Fine", value: "abc"), .invalidValue("abc")),
    ]

    @Test(arguments: StorageKind.allCases)
    func everyRefusedEditLeavesStateAndLogUntouched(kind: StorageKind) async throws {
        let storage = try kind.make()
        let store = try await open(storage)
        let item = try await store.create(name: "Rusty Spork", serialNumber: "A1", value: "10", origin: nil)
        let before = await store.snapshot()

        for (changes, expected) in Self.refusedUpdates {
            await #expect(throws: expected) { try await store.update(item.key, changes, origin: nil) }
        }
        await #expect(throws: ItemStoreError.unknownItem(Self.missing)) {
            try await store.update(Self.missing, ItemChanges(name: "x"), origin: nil)
        }
        // An item that is gone is said before what is wrong with the text.
        await #expect(throws: ItemStoreError.unknownItem(Self.missing)) {
            try await store.update(Self.missing, ItemChanges(value: "abc"), origin: nil)
        }
        await #expect(throws: ItemStoreError.unknownItem(Self.missing)) {
            try await store.remove(Self.missing, origin: nil)
        }
        await #expect(throws: ItemStoreError.moveOutOfRange(index: 1, count: 1)) {
            try await store.move(item.key, to: 1, origin: nil)
        }
        await #expect(throws: ItemStoreError.moveOutOfRange(index: -1, count: 1)) {
            try await store.move(item.key, to: -1, origin: nil)
        }
        await #expect(throws: ItemStoreError.emptyName) { try await store.create(name: "", origin: nil) }
        await #expect(throws: ItemStoreError.invalidValue("abc")) {
            try await store.create(name: "Shiny Mac", value: "abc", origin: nil)
        }

        let after = await store.snapshot()
        #expect(after.state == before.state)
        #expect(after.sequence == before.sequence)
        #expect(try await storage.events(app: ItemStore.app, after: 0, limit: 100).count == 1)
        #expect(try await open(storage).items == [item])
    }

    @Test func valuesAreParsedStrictly() throws {
        #expect(try ItemValidation.value("0") == 0)
        #expect(try ItemValidation.value(" 42 ") == 42)
        #expect(try ItemValidation.value("$42") == 42)
        #expect(try ItemValidation.value("1000000000") == 1_000_000_000)
        #expect(throws: ItemStoreError.invalidValue("$")) { try ItemValidation.value("$") }
        #expect(throws: ItemStoreError.invalidValue("+5")) { try ItemValidation.value("+5") }
        #expect(throws: ItemStoreError.invalidValue("-1")) { try ItemValidation.value(-1) }
        #expect(try ItemValidation.name("  Shiny Mac ") == "Shiny Mac")
        #expect(try ItemValidation.name(String(repeating: "é", count: 200)).count == 200)
        #expect(try ItemValidation.serialNumber("  ") == nil)
    }

    @Test func errorsReadAsSentencesAndNameTheirField() {
        #expect(ItemStoreError.invalidValue("abc").description
            == #"The value must be a whole number of dollars from 0 to 1,000,000,000, not "abc"."#)
        #expect(ItemStoreError.invalidValue("abc").field == .valueInDollars)
        #expect(ItemStoreError.emptyName.field == .name)
        #expect(ItemStoreError.serialNumberTooLong(length: 65).field == .serialNumber)
        #expect(ItemStoreError.unknownItem(UUID()).field == nil)
    }

    @Test(arguments: StorageKind.allCases)
    func twoScenesEditingDifferentFieldsOfOneItemBothKeepTheirEdit(kind: StorageKind) async throws {
        let storage = try kind.make()
        let store = try await open(storage)
        let item = try await store.create(name: "Shiny Mac", serialNumber: "S1", value: "5", origin: nil)
        let recorder = EventRecorder(store.events(after: 1))
        let left = SceneSession.ID(), right = SceneSession.ID()

        async let renamed = store.update(item.key, ItemChanges(name: "Rusty Mac"), origin: left)
        async let repriced = store.update(item.key, ItemChanges(value: "$77"), origin: right)
        _ = try await (renamed, repriced)

        let stored = try #require(await store.items.first)
        #expect(stored.name == "Rusty Mac")
        #expect(stored.valueInDollars == 77)
        #expect(stored.serialNumber == "S1")
        let events = try await recorder.waitForEvents(count: 2)
        let changed = events.map { envelope -> (SceneSession.ID?, Set<Item.Field>) in
            guard case let .itemUpdated(_, fields) = envelope.event else { return (nil, []) }
            return (envelope.origin, fields)
        }
        #expect(changed.contains { $0.0 == left && $0.1 == [.name] })
        #expect(changed.contains { $0.0 == right && $0.1 == [.valueInDollars] })
        #expect(try await open(storage).items == [stored])
    }

    @Test func anEditThatChangesNothingSendsNoEvent() async throws {
        let store = try await open(try SQLiteStorage.inMemory())
        let item = try await store.create(name: "Fluffy Bear", value: "3", origin: nil)
        let unchanged = try await store.update(item.key, ItemChanges(name: " Fluffy Bear ", value: "$3"), origin: nil)
        #expect(unchanged == item)
        #expect(await store.snapshot().sequence == 1)
    }

    @Test(arguments: StorageKind.allCases)
    func orderSurvivesARestartAfterManyMovesAndRemovals(kind: StorageKind) async throws {
        let storage = try kind.make()
        let store = try await open(storage)
        var keys: [UUID] = []
        for index in 0..<6 { keys.append(try await store.create(name: "Item \(index)", origin: nil).key) }
        // Moving back and forth between the same neighbours exhausts the room between their ranks.
        for round in 0..<80 {
            try await store.move(round.isMultiple(of: 2) ? keys[5] : keys[4], to: 2, origin: nil)
        }
        try await store.remove(keys[2], origin: nil)
        try await store.move(keys[0], to: 4, origin: nil)
        let expected = await store.items
        #expect(expected.count == 5)
        #expect(expected.last?.key == keys[0])
        #expect(try await open(storage).items == expected)
        #expect(await store.snapshot().state.totalValue == 0)
    }

    @Test func replayingTheLogRebuildsTheItems() async throws {
        let store = try await open(try SQLiteStorage.inMemory())
        for _ in 0..<30 { try await store.createRandomItem(origin: nil) }
        let items = await store.items
        try await store.move(items[3].key, to: 20, origin: nil)
        try await store.remove(items[7].key, origin: nil)
        try await store.update(items[9].key, ItemChanges(name: "Renamed", valueInDollars: 1), origin: nil)
        let snapshot = await store.snapshot()

        var replayed = ItemsState()
        var iterator = store.events(after: 0).makeAsyncIterator()
        for _ in 0..<snapshot.sequence { _ = replayed.apply(try #require(try await iterator.next()).event) }
        #expect(replayed == snapshot.state)
    }
}
