public import Foundation
import SceneSync
public import SceneSyncUI

/// What the detail screen asks of its coordinator.
@MainActor
public protocol ItemDetailScreenDelegate: AnyObject {
    /// The item shown was deleted, in this window or another.
    func itemDetailScreen(_ screen: ItemDetailScreen, itemWasDeleted name: String)
}

/// One item's fields, as the book's `DetailViewController`: name, serial number and value can be
/// edited, the date created is shown. A field commits when the user leaves it or presses Enter; an
/// invalid value shows its error next to the field and the stored value stays as it was.
@MainActor
public final class ItemDetailScreen: ScreenController {
    /// The screen's kind of route: `item/<key>`.
    public static let route = RoutePattern<UUID>("item")
    /// Node ids.
    public enum NodeID {
        /// The form.
        public static let form = "item-form"
        /// The form's one section.
        public static let fields = "item-fields"
        /// The name field.
        public static let name = "name"
        /// The serial number field.
        public static let serialNumber = "serialNumber"
        /// The value field, in whole dollars.
        public static let value = "value"
        /// The date the item was created, read-only.
        public static let dateCreated = "dateCreated"
    }

    /// Who to tell when the item goes away.
    public weak var delegate: (any ItemDetailScreenDelegate)?
    /// The item's key.
    public let key: UUID
    private let store: ItemStore
    private var item: Item?
    private var errors: [String: String] = [:]
    /// What was typed into each field the store refused, until the field is committed again.
    private var refused: [String: String] = [:]

    /// Creates the screen for the item with `key`.
    public init(store: ItemStore, key: UUID) {
        self.store = store
        self.key = key
        super.init(route: Self.route(key), title: "Item")
    }

    public override func load() async {
        let snapshot = await store.snapshot()
        item = snapshot.state.item(key)
        setTitle(item?.name ?? "Item")
        follow(store.controller, from: snapshot.sequence) { [weak self] envelope in
            self?.apply(envelope)
        }
        // Reloaded after falling behind the log: the item may have gone meanwhile.
        if item == nil, isVisible { delegate?.itemDetailScreen(self, itemWasDeleted: "The item") }
    }

    public override func makeContent() -> [ViewNode] {
        guard let item else { return [.emptyState(id: "item-missing", title: "This item no longer exists.")] }
        return [.form(id: NodeID.form, sections: [
            .section(id: NodeID.fields, children: [
                .textField(id: NodeID.name, label: "Name", value: item.name, draft: draft(for: NodeID.name))
                    .error(errors[NodeID.name])
                    .onCommit { [weak self] text in try await self?.commit(ItemChanges(name: text), typed: text, in: NodeID.name) },
                .textField(id: NodeID.serialNumber, label: "Serial Number", value: item.serialNumber ?? "",
                           draft: draft(for: NodeID.serialNumber), placeholder: "None")
                    .error(errors[NodeID.serialNumber])
                    .onCommit { [weak self] text in
                        try await self?.commit(ItemChanges(serialNumber: text), typed: text, in: NodeID.serialNumber)
                    },
                .textField(id: NodeID.value, label: "Value", value: String(item.valueInDollars),
                           draft: draft(for: NodeID.value), inputMode: .numeric)
                    .hint("In whole dollars, such as 250")
                    .error(errors[NodeID.value])
                    .onCommit { [weak self] text in try await self?.commit(ItemChanges(value: text), typed: text, in: NodeID.value) },
                .label(id: NodeID.dateCreated, label: "Date Created", value: Self.format(item.dateCreated)),
            ])
        ])]
    }

    /// A value the store refused would be lost by going back: Back asks first.
    public override var unsavedWork: String? {
        let lost = [(NodeID.name, "Name"), (NodeID.serialNumber, "Serial Number"), (NodeID.value, "Value")]
            .compactMap { field, label in refused[field].map { "“\($0)” in \(label)" } }
        guard let last = lost.last else { return nil }
        let joined = lost.count == 1 ? last : lost.dropLast().joined(separator: ", ") + " and " + last
        return "\(joined) \(lost.count == 1 ? "was" : "were") not saved. Discard, or keep editing to fix \(lost.count == 1 ? "it" : "them")."
    }

    public override func discardUnsavedWork() async {
        for field in refused.keys { await clearDraft(for: field) }
        refused = [:]
        errors = [:]
    }

    /// Sends one field's edit to the store. A value the store refuses shows its error next to the
    /// field; the stored value stays as it was.
    private func commit(_ changes: ItemChanges, typed text: String, in field: String) async throws {
        do {
            let stored = try await store.update(key, changes, origin: origin)
            errors[field] = nil
            refused[field] = nil
            await clearDraft(for: field)
            // The answer to this window's own commit, in one patch: the stored text (trimmed, say)
            // replaces what was typed, and the field does not say it changed elsewhere.
            update([.acceptCommit(of: field, storedValue: Self.text(of: field, in: stored), typed: text)])
        } catch let error where error.field != nil {
            errors[field] = error.description
            refused[field] = text
            // What was typed stays in the field, as its draft, until it is fixed or discarded.
            try? await setDraft(text, for: field)
            update([.setError(of: field, error.description), .set(field, [.draft: .string(text)])])
        }
    }

    private func apply(_ envelope: EventEnvelope<ItemEvent>) {
        switch envelope.event {
        case let .itemUpdated(updated, changed) where updated.key == key:
            item = updated
            if changed.contains(.name) { setTitle(updated.name) }
            // A change this window committed is answered by `commit`, which knows what was typed.
            guard envelope.origin == nil || envelope.origin != origin else { return }
            let fields: [(Item.Field, String)] = [(.name, NodeID.name), (.serialNumber, NodeID.serialNumber), (.valueInDollars, NodeID.value)]
            update(fields.filter { changed.contains($0.0) }.map { field, node in
                .set(node, [.value: .string(Self.text(of: node, in: updated))])
            })
        case let .itemRemoved(removed, _) where removed == key:
            let name = item?.name ?? "The item"
            item = nil
            delegate?.itemDetailScreen(self, itemWasDeleted: name)
        default:
            break
        }
    }

    /// What the field `node` shows for `item`.
    private static func text(of node: String, in item: Item) -> String {
        switch node {
        case NodeID.name: item.name
        case NodeID.serialNumber: item.serialNumber ?? ""
        default: String(item.valueInDollars)
        }
    }

    private static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "MMM d, yyyy"
        return formatter.string(from: date)
    }
}
