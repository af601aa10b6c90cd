import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// The server's HTTP routes, with `HEAD` and `OPTIONS` on every one of them.
///
/// - `HEAD`: every route that answers GET answers HEAD as GET would, the same status and header
///   fields (`Content-Type`, `Content-Length`, `ETag`, the security headers…), and no body (RFC 9110
///   §9.3.2). Hummingbird's router makes these from the GET routes
///   (`RouterOptions.autoGenerateHeadEndpoints`), and ``RequestGuard`` leaves the body out of every
///   answer to HEAD, so that refusals and errors (`404`, `401`…) have none either. A route that
///   streams (a widget's events) has a HEAD route of its own, which answers the head and ends. An
///   app's assets answer HEAD through Hummingbird's `FileMiddleware`.
/// - `OPTIONS`: every routed path answers `204 No Content` with `Allow`, the methods it takes
///   (`GET, HEAD, OPTIONS`, or `OPTIONS, POST`…). A path whose HEAD would answer `404` (no such
///   app, no such file) or `400` (not a plain file name) answers OPTIONS so too, and a path nothing
///   routes stays `404`. OPTIONS on an app's route takes the access token, as its other methods
///   do. No CORS header is added: the server serves its own pages only.
///
/// Both go through the router's middlewares as every other request does: `Host` is checked and the
/// security headers are added.
struct MethodRoutes: HTTPResponderBuilder {
    let router: Router<AppRequestContext>
    /// The responder the router builds, for `OPTIONS` to ask what `HEAD` would answer.
    private let built = BuiltResponder()

    /// Adds an `OPTIONS` route to every path of `router` that has none; call it once every other
    /// route is in. The paths that have a route in `api` (behind the access token) get it there.
    ///
    /// - Parameter publicRoutes: The routes, as `RouteDescription.description` writes them, added to
    ///   `router` outside `api`.
    init(router: Router<AppRequestContext>, api: RouterGroup<AppRequestContext>, publicRoutes: Set<String>) {
        self.router = router
        for routes in Dictionary(grouping: router.routes, by: \.path.description).values {
            let methods = Set(routes.map(\.method))
            guard let path = routes.first?.path, !methods.contains(.options) else { continue }
            var allowed = methods.union([.options])
            if methods.contains(.get) { allowed.insert(.head) }
            let allow = allowed.map(\.rawValue).sorted().joined(separator: ", ")
            let probe = allowed.contains(.head) ? built : nil
            let answer: @Sendable (Request, AppRequestContext) async throws -> Response = { request, context in
                try await probe?.refuseWhereHeadFindsNothing(request, context: context)
                return Self.options(allowing: allow)
            }
            if routes.allSatisfy({ publicRoutes.contains($0.description) }) {
                router.on(path, method: .options, use: answer)
            } else {
                api.on(path, method: .options, use: answer)
            }
        }
    }

    func buildResponder() -> RouterResponder<AppRequestContext> {
        let responder = router.buildResponder()
        built.set(responder)
        return responder
    }

    /// `204 No Content` with `Allow: allow`.
    static func options(allowing allow: String) -> Response {
        var response = Response(status: .noContent, headers: [.allow: allow])
        // A 204 has no body, and so no length (RFC 9110 §8.6).
        response.headers[.contentLength] = nil
        return response
    }
}

/// The router's responder once it is built, so that a route can ask it what another method on the
/// same path would answer.
final class BuiltResponder: Sendable {
    private let responder = Mutex<RouterResponder<AppRequestContext>?>(nil)

    func set(_ responder: RouterResponder<AppRequestContext>) {
        self.responder.withLock { $0 = responder }
    }

    /// Throws `404` or `400` when HEAD on `request`'s path answers so: nothing is there for OPTIONS
    /// to describe. HEAD is safe: it changes nothing and follows no stream.
    func refuseWhereHeadFindsNothing(_ request: Request, context: AppRequestContext) async throws {
        guard let responder = responder.withLock({ $0 }) else { return }
        var head = request.head
        head.method = .head
        let answer = try await responder.respond(to: Request(head: head, body: RequestBody(buffer: ByteBuffer())), context: context)
        if answer.status == .notFound || answer.status == .badRequest { throw HTTPError(answer.status) }
    }
}

/// `OPTIONS` on an app's asset, which Hummingbird's `FileMiddleware` serves rather than a route:
/// `204` with `Allow: GET, HEAD, OPTIONS` where HEAD finds a file, and otherwise what the rest of
/// the chain answers (`404`).
struct FileOptions<Context: RequestContext>: RouterMiddleware {
    let pathPrefix: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .options, request.uri.path.hasPrefix(pathPrefix) else { return try await next(request, context) }
        var head = request.head
        head.method = .head
        if let found = try? await next(Request(head: head, body: RequestBody(buffer: ByteBuffer())), context),
           found.status.kind == .successful || found.status == .notModified {
            return MethodRoutes.options(allowing: "GET, HEAD, OPTIONS")
        }
        return try await next(request, context)
    }
}

extension Response {
    /// This answer as an answer to HEAD: the same status and header fields, `Content-Length`
    /// included where this one has it (a stream has none), and no body.
    func answeringHead() -> Response {
        var head = Response(status: status, headers: headers)
        head.headers[.contentLength] = headers[.contentLength]
        return head
    }
}
