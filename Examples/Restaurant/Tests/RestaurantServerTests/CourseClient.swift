import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client of the menu API written to the course's contract, the way its iOS app calls it:
/// `URLSession`, `Codable` models with the course's coding keys, and a status of exactly 200.
struct CourseClient {
    struct MenuItem: Codable, Equatable {
        var id: Int
        var name: String
        var detailText: String
        var price: Double
        var category: String
        var imageURL: URL

        enum CodingKeys: String, CodingKey {
            case id, name, price, category
            case detailText = "description"
            case imageURL = "image_url"
        }
    }

    struct MenuResponse: Codable { let items: [MenuItem] }
    struct CategoriesResponse: Codable { let categories: [String] }
    struct OrderResponse: Codable {
        let prepTime: Int
        enum CodingKeys: String, CodingKey { case prepTime = "preparation_time" }
    }

    enum ClientError: Error { case categoriesNotFound, menuItemsNotFound, orderRequestFailed, imageDataMissing }

    let baseURL: URL

    func fetchCategories() async throws -> [String] {
        let (data, response) = try await URLSession.shared.data(from: baseURL.appendingPathComponent("categories"))
        guard let http = response as? HTTPURLResponse, http.statusCode == 200 else { throw ClientError.categoriesNotFound }
        return try JSONDecoder().decode(CategoriesResponse.self, from: data).categories
    }

    func fetchMenuItems(forCategory categoryName: String) async throws -> [MenuItem] {
        var components = URLComponents(url: baseURL.appendingPathComponent("menu"), resolvingAgainstBaseURL: true)!
        components.queryItems = [URLQueryItem(name: "category", value: categoryName)]
        let (data, response) = try await URLSession.shared.data(from: components.url!)
        guard let http = response as? HTTPURLResponse, http.statusCode == 200 else { throw ClientError.menuItemsNotFound }
        return try JSONDecoder().decode(MenuResponse.self, from: data).items
    }

    func submitOrder(forMenuIDs menuIDs: [Int]) async throws -> Int {
        var request = URLRequest(url: baseURL.appendingPathComponent("order"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(["menuIds": menuIDs])
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let http = response as? HTTPURLResponse, http.statusCode == 200 else { throw ClientError.orderRequestFailed }
        return try JSONDecoder().decode(OrderResponse.self, from: data).prepTime
    }

    func fetchImage(from url: URL) async throws -> Data {
        let (data, response) = try await URLSession.shared.data(from: url)
        guard let http = response as? HTTPURLResponse, http.statusCode == 200 else { throw ClientError.imageDataMissing }
        return data
    }
}
