import Foundation
import SceneSync

/// A small model for testing the core on its own: an append-only list of lines.
struct Journal: ModelState, Equatable {
    enum Event: UpdateEvent {
        case appended(String, index: Int)
        case cleared
    }

    private(set) var lines: [String] = []

    init() {}

    init(records: RecordSet) throws {
        lines = try records.decode("lines", as: Line.self).values.sorted { $0.index < $1.index }.map(\.text)
    }

    mutating func apply(_ event: Event) -> [RecordChange] {
        switch event {
        case let .appended(text, index):
            lines.append(text)
            return [.save(collection: "lines", key: String(index), value: Line(index: index, text: text))]
        case .cleared:
            defer { lines = [] }
            return lines.indices.map { .delete(collection: "lines", key: String($0)) }
        }
    }

    struct Line: Codable, Sendable {
        var index: Int
        var text: String
    }
}

enum JournalError: Error, Equatable {
    case emptyLine
}

extension ModelController where State == Journal {
    /// Appends a line; an empty one is refused.
    @discardableResult
    func append(_ text: String, origin: SceneSession.ID? = nil) async throws -> EventEnvelope<Journal.Event> {
        try await perform(origin: origin) { state in
            guard !text.isEmpty else { throw JournalError.emptyLine }
            return [.appended(text, index: state.lines.count)]
        }[0]
    }
}
