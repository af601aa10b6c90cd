import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

extension SceneSyncServer {
    /// The HTTP routes: the home page, each app's page, and the renderer's files.
    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: RequestGuard(server: self))
        router.get("/") { request, _ in
            self.homePage(for: request)
        }
        router.get("/js/**") { request, context in
            try await self.serve(self.staticFiles.lookup(request.uri.path), context: context)
        }
        router.get("/css/**") { request, context in
            try await self.serve(self.staticFiles.lookup(request.uri.path), context: context)
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
        return router
    }

    private func homePage(for request: Request) -> Response {
        // Links keep the access token the page was opened with, so the app pages can send it.
        var query: String?
        if let token = configuration.token, let given = request.uri.queryParameters["token"],
           policy.accepts(token: String(given)) {
            query = "token=\(token.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? "")"
        }
        let html = HomePage.html(apps: apps, query: query)
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private func serve(_ lookup: StaticFiles.Lookup, context: BasicRequestContext) async throws -> Response {
        switch lookup {
        case let .file(path, contentType):
            let body = try await FileIO().loadFile(path: path, context: context)
            return Response(status: .ok, headers: [.contentType: contentType, .cacheControl: "no-cache"], body: body)
        case .invalid:
            throw HTTPError(.badRequest)
        case .notFound:
            throw HTTPError(.notFound)
        }
    }
}

/// Refuses mutating requests (POST, PUT, PATCH, DELETE) that name another host or come from
/// another site, and adds headers that keep pages out of frames and tokens out of referrers.
struct RequestGuard<Context: RequestContext>: RouterMiddleware {
    let server: SceneSyncServer

    static var mutatingMethods: Set<HTTPRequest.Method> { [.post, .put, .patch, .delete] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if Self.mutatingMethods.contains(request.method),
           let refusal = server.policy.refusal(for: request.head, port: server.boundPort, requireOrigin: true) {
            server.configuration.logger.notice("Refused a request", metadata: [
                "method": "\(request.method)", "path": "\(request.uri.path)", "reason": "\(refusal)",
            ])
            return Response(status: refusal.status, headers: [.contentType: "text/plain; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: "\(refusal.status.reasonPhrase)\n")))
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
