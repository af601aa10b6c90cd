import SceneSync

/// The home page, a launcher: every hosted app as a card with its title (a link that opens it),
/// its summary and, for an app with a widget, its widget summary as it is now, drawn on the server
/// so that it shows at once, without script.
enum HomePage {
    /// The page's HTML; `widgets` holds the widget summary now of each app that has one, by app
    /// name; `query` (already URL-encoded, such as `token=…`) is added to every link.
    static func html(apps: [HostedApp], widgets: [String: WidgetSummary] = [:], query: String?) -> String {
        let suffix = query.map { "?\($0)" } ?? ""
        let cards = apps.map { app in
            let id = "home-\(app.name)"
            let lines = widgets[app.name].map { summary in
                let rows = summary.lines.map { line in
                    """
                                  <dt>\(escape(line.label))</dt><dd>\(escape(line.text))</dd>
                    """
                }
                return """
                                <dl class="home-widget" aria-label="\(escape(app.title)) now">
                    \(rows.joined(separator: "\n"))
                                </dl>

                    """
            } ?? ""
            return """
                      <li class="home-app">
                        <h2 id="\(id)"><a href="/\(escape(app.name))\(escape(suffix))">\(escape(app.title))</a></h2>
                        <p class="home-summary">\(escape(app.summary))</p>
                \(lines)            <span class="home-open" aria-hidden="true">Open</span>
                      </li>
                """
        }
        return """
            <!doctype html>
            <html lang="en">
              <head>
                <meta charset="utf-8">
                <meta name="viewport" content="width=device-width, initial-scale=1">
                <meta name="color-scheme" content="light dark">
                <title>SceneSync</title>
                <link rel="icon" href="data:,">
                <link rel="stylesheet" href="/css/home.css">
              </head>
              <body class="home">
                <main>
                  <header class="home-header">
                    <h1>SceneSync</h1>
                    <p>Every app here runs on the server; each window you open stays in step with the others.</p>
                  </header>
                  <ul class="home-apps">
            \(cards.joined(separator: "\n"))
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
