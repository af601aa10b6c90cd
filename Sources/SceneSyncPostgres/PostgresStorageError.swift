import PostgresNIO
import SceneSync

/// A failure of ``PostgresDatabase`` or ``PostgresStorage`` other than the storage contract's own
/// `StorageError`.
public enum PostgresStorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database was used before ``PostgresDatabase/start()`` finished.
    case notStarted
    /// The database was used after ``PostgresDatabase/close()``.
    case closed
    /// An app's name is too long to be named in a notification to other nodes.
    case appNameTooLong(bytes: Int, limit: Int)
    /// A sequence number does not fit PostgreSQL's `bigint`.
    case sequenceOutOfRange(UInt64)
    /// A transient event, with its app's name, is longer than a notification to other nodes may be.
    case transientTooLarge(bytes: Int, limit: Int)
    /// PostgreSQL refused a request or could not be reached: what was being done, the SQLSTATE if
    /// the server sent one, and what went wrong. Never holds the password.
    case database(operation: String, sqlState: String?, message: String)

    public var description: String {
        switch self {
        case .notStarted:
            "The PostgreSQL database was used before it was started."
        case .closed:
            "The PostgreSQL database was used after it was closed."
        case let .appNameTooLong(bytes, limit):
            "An app name of \(bytes) bytes is longer than the \(limit) PostgreSQL storage allows."
        case let .sequenceOutOfRange(sequence):
            "The sequence number \(sequence) does not fit PostgreSQL's bigint."
        case let .transientTooLarge(bytes, limit):
            "A transient event of \(bytes) bytes is longer than the \(limit) a notification to other nodes may carry."
        case let .database(operation, sqlState?, message):
            "PostgreSQL could not \(operation): \(message) (SQLSTATE \(sqlState))"
        case let .database(operation, nil, message):
            "PostgreSQL could not \(operation): \(message)"
        }
    }

    /// `error`, from postgres-nio, as a ``database(operation:sqlState:message:)``; errors that are
    /// already SceneSync's pass through.
    static func wrap(_ error: any Error, operation: String) -> any Error {
        switch error {
        case is PostgresStorageError, is StorageError, is CancellationError:
            return error
        default:
            let (sqlState, message) = describe(error)
            return PostgresStorageError.database(operation: operation, sqlState: sqlState, message: message)
        }
    }

    /// The SQLSTATE of a postgres-nio error, looking inside a transaction's error.
    static func sqlState(of error: any Error) -> String? {
        describe(error).sqlState
    }

    /// A description of a postgres-nio error that holds what the server said and the kind of
    /// failure, without the query's bound values or the connection's configuration.
    static func describe(_ error: any Error) -> (sqlState: String?, message: String) {
        switch error {
        case let error as PostgresTransactionError:
            if let inner = error.closureError ?? error.beginError ?? error.commitError {
                return describe(inner)
            }
            return (nil, "the transaction failed")
        case let error as PSQLError:
            if let server = error.serverInfo {
                var message = server[.message] ?? "server error"
                if let detail = server[.detail] { message += " (\(detail))" }
                return (server[.sqlState], message)
            }
            if let underlying = error.underlying {
                return (nil, "\(error.code): \(underlying)")
            }
            return (nil, "\(error.code)")
        default:
            return (nil, "\(error)")
        }
    }
}
