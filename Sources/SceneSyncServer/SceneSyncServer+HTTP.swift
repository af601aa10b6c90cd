import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SceneSync

extension SceneSyncServer {
    /// The HTTP routes: the home page, each app's page, the renderer's files, and each app's own
    /// routes and assets.
    ///
    /// Every route that answers GET answers HEAD as GET would, without the body (Hummingbird's
    /// `autoGenerateHeadEndpoints`, with ``RequestGuard`` leaving the body out of every answer to
    /// HEAD, errors included), and every routed path answers OPTIONS (see ``MethodRoutes``).
    func makeRouter(appParts: [(app: HostedApp, parts: HostedApp.Parts)], widgets: [String: WidgetHub] = [:]) -> MethodRoutes {
        let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: ClientAddressMiddleware(resolver: ClientAddress(trustedProxies: configuration.trustedProxies)))
        router.add(middleware: RequestGuard(server: self))
        // Metrics: `GET /metrics`, for this machine or with the token (see Metrics/).
        if let registry = configuration.metrics.registry { addMetricsRoute(to: router, registry: registry, widgets: widgets) }
        for (app, parts) in appParts {
            if let assets = parts.assets {
                // An app's assets are its data: behind the token, like its routes.
                router.add(middleware: TokenGuard(policy: policy, logger: configuration.logger, pathPrefix: "/\(app.name)/assets/"))
                router.add(middleware: FileOptions(pathPrefix: "/\(app.name)/assets/"))
                router.add(middleware: FileMiddleware(
                    assets.path, urlBasePath: "/\(app.name)/assets", cacheControl: .init([(MediaType(type: .any), [.noCache])]),
                    logger: configuration.logger))
            }
        }
        router.get("/") { request, _ in
            var summaries: [String: WidgetSummary] = [:]
            for (name, hub) in widgets { summaries[name] = await hub.current().summary }
            return self.homePage(for: request, widgets: summaries)
        }
        for folder in StaticFiles.folders.sorted() {
            router.get("/\(folder)/**") { request, _ in
                RendererAssets.response(try self.assets.asset(at: request.uri.path).get(), to: request,
                                        cacheControl: Self.cacheControl(forPath: request.uri.path))
            }
        }
        router.get("\(RendererAssets.versionedPrefix):version/**") { request, _ in
            let (asset, current) = try self.assets.versionedAsset(at: request.uri.path).get()
            return RendererAssets.response(asset, to: request, cacheControl: current ? RendererAssets.immutable : "no-cache")
        }
        router.get("/:app/widget") { request, context in
            guard let name = context.parameters.get("app"), widgets[name] != nil else { throw HTTPError(.notFound) }
            return try self.page(self.assets.widgetPage, for: request, cacheControl: Self.widgetFilesCacheControl)
                .settingTokenCookie(for: request, policy: self.policy)
        }
        // An app's page, at `/<app>` and at every place of it (`/<app>/item/<key>`: the window's
        // `path`, PROTOCOL.md), but not for what the app keeps under its own names.
        let appPage: @Sendable (Request, AppRequestContext) throws -> Response = { request, context in
            guard let name = context.parameters.get("app"), self.apps.contains(where: { $0.name == name }),
                  !HostedApp.ownSegments.contains(context.parameters.getCatchAll().first.map(String.init) ?? "") else {
                throw HTTPError(.notFound)
            }
            return try self.page(self.assets.appPage(for: name), for: request).settingTokenCookie(for: request, policy: self.policy)
        }
        router.get("/:app", use: appPage)
        router.get("/:app/**", use: appPage)
        let publicRoutes = Set(router.routes.map(\.description))
        // Apps' routes are an API: beyond loopback they take the access token, whatever the method.
        let api = router.group().add(middleware: TokenGuard(policy: policy, logger: configuration.logger))
        for (_, parts) in appParts { parts.routes(api) }
        if !widgets.isEmpty { Self.addWidgetRoutes(to: api, widgets: widgets, reporter: refusals) }
        return MethodRoutes(router: router, api: api, publicRoutes: publicRoutes)
    }

    /// `GET /<app>/widget.json`: the summary, with an `ETag`; `If-None-Match` with it gets `304`.
    /// `GET /<app>/widget/events`: Server-Sent Events, one `summary` event now and then the newest
    /// summary at most every quarter of a second while it changes, each with the summary's `ETag`
    /// as its `id`. Over the followers' limits (in all, per address) the answer is `503` with
    /// `Retry-After`; a follower that does not read for 10 s is dropped. `HEAD` on the stream
    /// answers its head at once and follows nothing.
    ///
    /// Routed by parameter, as `/:app` is: a constant `/<app>/…` would hide the app's page.
    private static func addWidgetRoutes(to api: RouterGroup<AppRequestContext>, widgets: [String: WidgetHub], reporter: RefusalReporter) {
        @Sendable func hub(_ context: AppRequestContext) throws -> WidgetHub {
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
        // HEAD on the stream answers its head and ends, following nothing: it must not hold the
        // connection open, nor take a follower's place.
        api.head("/:app/widget/events") { _, context in
            _ = try hub(context)
            var response = Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"])
            // As GET's: a stream has no length.
            response.headers[.contentLength] = nil
            return response
        }
        api.get("/:app/widget/events") { _, context in
            let hub = try hub(context)
            let updates: AsyncStream<WidgetHub.Published>
            do throws(WidgetHub.Refusal) {
                updates = try await hub.follow(from: context.clientAddress)
            } catch {
                let isFull = error == .full
                reporter.refused(isFull ? "widgetFollowersOverServerLimit" : "widgetFollowersOverAddressLimit")
                throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "5"],
                                message: isFull ? "Too many follow this widget; try again shortly." : "Too many followers from this address.")
            }
            let channel = context.channel
            let stallTimeout = hub.limits.stallTimeout
            // A small send buffer, so that a follower that does not read blocks the writer (and is
            // dropped) within seconds rather than after megabytes.
            _ = channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: 16 * 1024)
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                            body: ResponseBody { writer in
                for await published in updates {
                    // A follower that does not read is dropped, rather than held for ever.
                    let watchdog = Task {
                        guard (try? await Task.sleep(for: stallTimeout)) != nil else { return }
                        reporter.refused("widgetFollowersNotReading")
                        try? await channel.close()
                    }
                    defer { watchdog.cancel() }
                    try await writer.write(published.event)
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

    private func homePage(for request: Request, widgets: [String: WidgetSummary]) -> Response {
        // Links keep the access token the page was opened with, so the app pages can send it.
        var query: String?
        if let token = configuration.token, let given = request.uri.queryParameters["token"],
           policy.accepts(token: String(given)) {
            query = "token=\(token.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? "")"
        }
        let html = HomePage.html(apps: apps, widgets: widgets, query: query)
        return Response(status: .ok, headers: [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", Self.contentSecurityPolicy: Self.pagePolicy,
        ], body: ResponseBody(byteBuffer: ByteBuffer(string: html))).settingTokenCookie(for: request, policy: policy)
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

    /// An app's or the widget's page, with its `Content-Security-Policy`.
    private func page(_ page: RendererAssets.Asset?, for request: Request, cacheControl: String = "no-cache") throws -> Response {
        guard let page else {
            configuration.logger.error("A page of the renderer is missing from the bundle", metadata: [
                "root": "\(assets.files.root.path)",
            ])
            throw HTTPError(.internalServerError, message: "The renderer is missing.")
        }
        return RendererAssets.response(page, to: request, cacheControl: cacheControl, extra: [Self.contentSecurityPolicy: Self.pagePolicy])
    }
}

/// Refuses requests that name another host (DNS rebinding), and mutating ones (any method but GET,
/// HEAD and OPTIONS) that come from another site, or from a native client without JSON, or without
/// the token when the server has one; adds headers that keep pages out of frames and tokens out of
/// referrers; and leaves the body out of every answer to HEAD.
struct RequestGuard<Context: RequestContext>: RouterMiddleware {
    let server: SceneSyncServer

    /// Methods that change nothing; every other one is checked as mutating.
    static var safeMethods: Set<HTTPRequest.Method> { [.get, .head, .options] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let refusal = Self.safeMethods.contains(request.method)
            ? server.policy.refusal(for: request.head, port: server.boundPort, requireOrigin: false)
            : server.policy.refusal(forMutating: request.head, port: server.boundPort)
        var response: Response
        if let refusal {
            server.configuration.logger.notice("Refused a request", metadata: [
                "method": "\(request.method)", "path": "\(request.uri.path)", "reason": "\(refusal)",
            ])
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let body = (try? encoder.encode(["error": refusal.code, "reason": refusal.description])) ?? Data()
            response = Response(status: refusal.status, headers: [.contentType: "application/json; charset=utf-8"],
                                body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        } else {
            do {
                response = try await next(request, context)
            } catch let error as any HTTPResponseError {
                // Errors are answers too (404, 400, …): they carry the same headers.
                response = try error.response(from: request, context: context)
            }
        }
        SecurityHeaders.add(to: &response.headers)
        // An answer to HEAD has GET's status and fields, and never a body (RFC 9110 §9.3.2), even
        // when it is an error or a refusal.
        if request.method == .head { response = response.answeringHead() }
        return response
    }
}

/// Guards apps' own routes and assets: when the server has an access token, every request to them
/// carries it, as `Authorization: Bearer …` or as the cookie a page opened with the token sets
/// (see ``AccessPolicy/tokenCookie``). With `pathPrefix`, only requests under it are guarded.
struct TokenGuard<Context: RequestContext>: RouterMiddleware {
    let policy: AccessPolicy
    let logger: Logger
    var pathPrefix: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let pathPrefix, !request.uri.path.hasPrefix(pathPrefix) { return try await next(request, context) }
        guard policy.token == nil || policy.accepts(token: AccessPolicy.presentedToken(request.head)) else {
            logger.notice("Refused an app's route without the access token", metadata: ["path": "\(request.uri.path)"])
            let body = Data(#"{"error":"unauthorized","reason":"this server needs its access token as Authorization: Bearer"}"#.utf8)
            return Response(status: .unauthorized, headers: [.contentType: "application/json; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        }
        return try await next(request, context)
    }
}

extension Response {
    /// The response, with the token cookie set when the page was opened with the access token in
    /// its URL (`?token=`), so that what the page loads without a header (pictures) carries it.
    func settingTokenCookie(for request: Request, policy: AccessPolicy) -> Response {
        guard let token = policy.token, let given = request.uri.queryParameters["token"], policy.accepts(token: String(given)) else {
            return self
        }
        var response = self
        response.headers[.setCookie] = "\(AccessPolicy.tokenCookie)=\(token); Path=/; HttpOnly; SameSite=Strict"
        return response
    }
}
