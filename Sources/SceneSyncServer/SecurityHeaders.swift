import HTTPTypes

/// The header fields every answer carries, refusals and errors included: nothing is sniffed into
/// another type, no page is framed, and no URL (which may carry the access token) is sent on as a
/// referrer.
enum SecurityHeaders {
    static let fields: [(name: String, value: String)] = [
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
    ]

    /// ``fields`` with their names parsed once.
    private static let typedFields: [(name: HTTPField.Name, value: String)] = fields.compactMap { field in
        HTTPField.Name(field.name).map { ($0, field.value) }
    }

    /// Sets ``fields`` on `headers`.
    static func add(to headers: inout HTTPFields) {
        for (name, value) in typedFields { headers[name] = value }
    }
}
