import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

extension SceneSyncServer {
    /// The HTTP routes: the home page, each app's page, the renderer's files, and each app's own
    /// routes and assets.
    func makeRouter(appParts: [(app: HostedApp, parts: HostedApp.Parts)], widgets: [String: WidgetHub] = [:]) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: RequestGuard(server: self))
        for (app, parts) in appParts {
            if let assets = parts.assets {
                router.add(middleware: FileMiddleware(
                    assets.path, urlBasePath: "/\(app.name)/assets", cacheControl: .init([(MediaType(type: .any), [.noCache])]),
                    logger: configuration.logger))
            }
        }
        router.get("/") { request, _ in
            self.homePage(for: request)
        }
        router.get("/js/**") { request, context in
            try await self.serve(self.staticFiles.lookup(request.uri.path), context: context,
                                 cacheControl: Self.cacheControl(forPath: request.uri.path))
        }
        router.get("/css/**") { request, context in
            try await self.serve(self.staticFiles.lookup(request.uri.path), context: context,
                                 cacheControl: Self.cacheControl(forPath: request.uri.path))
        }
        router.get("/:app/widget") { _, context in
            guard let name = context.parameters.get("app"), widgets[name] != nil else { throw HTTPError(.notFound) }
            return try await self.serve(self.staticFiles.widgetPage, context: context, cacheControl: Self.widgetFilesCacheControl)
        }
        router.get("/:app") { _, context in
            guard let name = context.parameters.get("app"), self.apps.contains(where: { $0.name == name }) else {
                throw HTTPError(.notFound)
            }
            guard case .file = self.staticFiles.appPage else {
                self.configuration.logger.error("The renderer's app.html is missing from the bundle", metadata: [
                    "root": "\(self.staticFiles.root.path)",
                ])
                throw HTTPError(.internalServerError, message: "The renderer is missing.")
            }
            return try await self.serve(self.staticFiles.appPage, context: context)
        }
        // Apps' routes are an API: beyond loopback they take the access token, whatever the method.
        let api = router.group().add(middleware: TokenGuard(policy: policy, logger: configuration.logger))
        for (_, parts) in appParts { parts.routes(api) }
        if !widgets.isEmpty { Self.addWidgetRoutes(to: api, widgets: widgets) }
        return router
    }

    /// `GET /<app>/widget.json`: the summary, with an `ETag`; `If-None-Match` with it gets `304`.
    /// `GET /<app>/widget/events`: Server-Sent Events, one `summary` event now and one per change,
    /// each with the summary's `ETag` as its `id`.
    ///
    /// Routed by parameter, as `/:app` is: a constant `/<app>/…` would hide the app's page.
    private static func addWidgetRoutes(to api: RouterGroup<BasicRequestContext>, widgets: [String: WidgetHub]) {
        @Sendable func hub(_ context: BasicRequestContext) throws -> WidgetHub {
            guard let name = context.parameters.get("app"), let hub = widgets[name] else { throw HTTPError(.notFound) }
            return hub
        }
        api.get("/:app/widget.json") { request, context in
            let published = try await hub(context).current()
            let headers: HTTPFields = [.eTag: published.etag, .cacheControl: "no-cache"]
            if let tags = request.headers[.ifNoneMatch], Self.matches(tags, published.etag) {
                return Response(status: .notModified, headers: headers)
            }
            var full = headers
            full[.contentType] = "application/json; charset=utf-8"
            return Response(status: .ok, headers: full, body: ResponseBody(byteBuffer: published.body))
        }
        api.get("/:app/widget/events") { _, context in
            let updates = try await hub(context).follow()
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                            body: ResponseBody { writer in
                for await published in updates {
                    var event = ByteBuffer(string: "event: summary\nid: \(published.etag)\ndata: ")
                    event.writeImmutableBuffer(published.body)
                    event.writeString("\n\n")
                    try await writer.write(event)
                }
                try await writer.finish(nil)
            })
        }
    }

    /// Whether an `If-None-Match` value names `etag` (or is `*`); weak tags compare as strong ones.
    static func matches(_ ifNoneMatch: String, _ etag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == "*" || tag == etag
        }
    }

    private func homePage(for request: Request) -> Response {
        // Links keep the access token the page was opened with, so the app pages can send it.
        var query: String?
        if let token = configuration.token, let given = request.uri.queryParameters["token"],
           policy.accepts(token: String(given)) {
            query = "token=\(token.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? "")"
        }
        let html = HomePage.html(apps: apps, query: query)
        return Response(status: .ok, headers: [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", Self.contentSecurityPolicy: Self.pagePolicy,
        ], body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!
    /// The pages run no inline script and load everything from the server itself; the
    /// WebSocket goes to the same host (`'self'` covers `ws:` to it in current browsers).
    static let pagePolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// The widget page's own files may be used from the browser's cache for an hour without asking,
    /// so that the widget opens, and shows its cached summary, while the server is down.
    static let widgetFilesCacheControl = "max-age=3600"

    static func cacheControl(forPath path: String) -> String {
        ["/js/widget.js", "/css/widget.css"].contains(path) ? widgetFilesCacheControl : "no-cache"
    }

    private func serve(_ lookup: StaticFiles.Lookup, context: BasicRequestContext, cacheControl: String = "no-cache") async throws -> Response {
        switch lookup {
        case let .file(path, contentType):
            let body = try await FileIO().loadFile(path: path, context: context)
            var headers: HTTPFields = [.contentType: contentType, .cacheControl: cacheControl]
            if contentType.hasPrefix("text/html") { headers[Self.contentSecurityPolicy] = Self.pagePolicy }
            return Response(status: .ok, headers: headers, body: body)
        case .invalid:
            throw HTTPError(.badRequest)
        case .notFound:
            throw HTTPError(.notFound)
        }
    }
}

/// Refuses requests that name another host (DNS rebinding), and mutating ones (any method but GET,
/// HEAD and OPTIONS) that come from another site, or from a native client without JSON, or without
/// the token when the server has one; adds headers that keep pages out of frames and tokens out of
/// referrers.
struct RequestGuard<Context: RequestContext>: RouterMiddleware {
    let server: SceneSyncServer

    /// Methods that change nothing; every other one is checked as mutating.
    static var safeMethods: Set<HTTPRequest.Method> { [.get, .head, .options] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let refusal = Self.safeMethods.contains(request.method)
            ? server.policy.refusal(for: request.head, port: server.boundPort, requireOrigin: false)
            : server.policy.refusal(forMutating: request.head, port: server.boundPort)
        if let refusal {
            server.configuration.logger.notice("Refused a request", metadata: [
                "method": "\(request.method)", "path": "\(request.uri.path)", "reason": "\(refusal)",
            ])
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let body = (try? encoder.encode(["error": refusal.code, "reason": refusal.description])) ?? Data()
            return Response(status: refusal.status, headers: [.contentType: "application/json; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
        var response = try await next(request, context)
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[Self.referrerPolicy] = "no-referrer"
        response.headers[Self.frameOptions] = "DENY"
        return response
    }

    private static var referrerPolicy: HTTPField.Name { HTTPField.Name("Referrer-Policy")! }
    private static var frameOptions: HTTPField.Name { HTTPField.Name("X-Frame-Options")! }
}

/// Guards apps' own routes: when the server has an access token, every request to them carries it
/// as `Authorization: Bearer …` (the server's pages take it in their URL and their WebSocket's
/// `hello` instead).
struct TokenGuard<Context: RequestContext>: RouterMiddleware {
    let policy: AccessPolicy
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard policy.token == nil || policy.accepts(token: AccessPolicy.bearerToken(request.head)) else {
            logger.notice("Refused an app's route without the access token", metadata: ["path": "\(request.uri.path)"])
            let body = Data(#"{"error":"unauthorized","reason":"this server needs its access token as Authorization: Bearer"}"#.utf8)
            return Response(status: .unauthorized, headers: [.contentType: "application/json; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
        return try await next(request, context)
    }
}
