import PostgresNIO
import SceneSyncPostgres
import Testing

@Suite struct PostgresURLTests {
    @Test func parsesEveryPart() throws {
        let url = try PostgresURL("postgres://alice:p%40ss%3Aw0rd@db.example.com:6543/scene%20sync?sslmode=require")
        #expect(url.user == "alice")
        #expect(url.password == "p@ss:w0rd")
        #expect(url.host == "db.example.com")
        #expect(url.port == 6543)
        #expect(url.database == "scene sync")
        #expect(url.sslMode == .require)
        #expect(url.description == "postgres://alice:***@db.example.com:6543/scene%20sync?sslmode=require")
    }

    @Test func fillsInDefaults() throws {
        let url = try PostgresURL("postgresql://bob@localhost/scenesync")
        #expect(url == PostgresURL(user: "bob", password: nil, host: "localhost", port: 5432, database: "scenesync", sslMode: .disable))
        #expect(url.description == "postgres://bob@localhost:5432/scenesync")
        #expect(try PostgresURL("postgres://bob@localhost/db?application_name=x&sslmode=prefer").sslMode == .prefer)
        #expect(try PostgresURL("postgres://bob@localhost/db?sslmode=disable").sslMode == .disable)
    }

    @Test func takesIPv6HostsInBrackets() throws {
        let url = try PostgresURL("postgres://u@[::1]:5433/d")
        #expect(url.host == "::1")
        #expect(url.port == 5433)
        #expect(url.description == "postgres://u@[::1]:5433/d")
    }

    @Test func makesConfigurations() throws {
        let url = try PostgresURL("postgres://alice:secret@db.example.com:6543/scenesync")
        let client = url.clientConfiguration()
        #expect(client.host == "db.example.com")
        #expect(client.port == 6543)
        #expect(client.username == "alice")
        #expect(client.password == "secret")
        #expect(client.database == "scenesync")
        let connection = try url.connectionConfiguration()
        #expect(connection.host == "db.example.com")
        #expect(connection.port == 6543)
        #expect(connection.password == "secret")
        #expect(!connection.tls.isAllowed, "no TLS without sslmode")
        #expect(try PostgresURL("postgres://a@h/d?sslmode=require").connectionConfiguration().tls.isEnforced)
    }

    @Test func neverShowsThePassword() throws {
        let url = try PostgresURL("postgres://alice:s3cr%40t@db.example.com/scenesync")
        #expect(url.password == "s3cr@t")
        for text in [url.description, String(reflecting: url), "\(url)", dumped(url)] {
            #expect(!text.contains("s3cr"), "\(text)")
            #expect(text.contains("***"), "\(text)")
        }
    }

    @Test func readsBackWhatItWritesWithThePassword() throws {
        for text in ["postgres://alice:s3cr%40t%3A%2F@db.example.com:6543/scene%20sync?sslmode=require",
                     "postgres://bob@[::1]:5432/scenesync"] {
            let url = try PostgresURL(text)
            #expect(try PostgresURL(url.stringWithPassword) == url, "\(url)")
        }
    }

    static let badURLs: [(String, PostgresURLError)] = [
        ("mysql://u:s3cret@h/d", .badScheme("mysql")),
        ("u:s3cret@h/d", .badScheme(nil)),
        ("s3cret:x@y://u@h/d", .badScheme(nil)),
        ("postgres://u:s3cret@/d", .missingHost),
        ("postgres://u:s3cret@:5432/d", .missingHost),
        ("postgres://h/d", .missingUser),
        ("postgres://:s3cret@h/d", .missingUser),
        ("postgres://u:s3cret@h:99999/d", .badPort("99999")),
        ("postgres://u:s3cret@h:0/d", .badPort("0")),
        ("postgres://u:s3cret@h:54a/d", .badPort("54a")),
        ("postgres://u:s3cret@h:/d", .badPort("")),
        ("postgres://u:s3cret@h", .missingDatabase),
        ("postgres://u:s3cret@h/", .missingDatabase),
        ("postgres://u:s3cret@h:5432?sslmode=disable", .missingDatabase),
        ("postgres://u:s3cret@h/d?sslmode=verify-full", .unknownSSLMode("verify-full")),
        ("postgres://u:s3cret@h/d?sslmode", .unknownSSLMode("")),
        ("postgres://u:s3cret%zz@h/d", .badPercentEncoding(part: "password")),
        ("postgres://u%zz:s3cret@h/d", .badPercentEncoding(part: "user")),
    ]

    @Test(arguments: badURLs)
    func refusesABadURL(_ text: String, _ expected: PostgresURLError) {
        #expect(throws: expected) { try PostgresURL(text) }
        do {
            _ = try PostgresURL(text)
        } catch {
            #expect(!error.description.contains("s3cret"), "\(error.description)")
            #expect(!String(reflecting: error).contains("s3cret"))
        }
    }

    private func dumped(_ value: some Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}
