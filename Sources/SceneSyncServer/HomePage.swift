/// The home page: every hosted app with its title, summary and a link to open it.
enum HomePage {
    /// The page's HTML; `query` (already URL-encoded, such as `token=…`) is added to every link.
    static func html(apps: [HostedApp], query: String?) -> String {
        let suffix = query.map { "?\($0)" } ?? ""
        let items = apps.map { app in
            """
                  <li>
                    <a href="/\(escape(app.name))\(escape(suffix))">\(escape(app.title))</a>
                    <p>\(escape(app.summary))</p>
                  </li>
            """
        }
        return """
            <!doctype html>
            <html lang="en">
              <head>
                <meta charset="utf-8">
                <meta name="viewport" content="width=device-width, initial-scale=1">
                <title>SceneSync</title>
                <link rel="stylesheet" href="/css/scenesync.css">
              </head>
              <body class="home">
                <main>
                  <h1>SceneSync</h1>
                  <ul class="apps">
            \(items.joined(separator: "\n"))
                  </ul>
                </main>
              </body>
            </html>

            """
    }

    /// Escapes text for HTML content and quoted attribute values.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
