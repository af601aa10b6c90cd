import Foundation

extension Item {
    private static let adjectives = ["Fluffy", "Rusty", "Shiny"]
    private static let nouns = ["Bear", "Spork", "Mac"]
    private static let serialCharacters = Array("0123456789ABCDEF")

    /// A random item as the book makes them: an adjective and a noun such as "Shiny Spork", a value
    /// from 0 to 99 dollars and an 8-character serial number, all drawn from `generator`.
    public static func random<Generator: RandomNumberGenerator>(using generator: inout Generator) -> Item {
        let name = "\(adjectives.randomElement(using: &generator)!) \(nouns.randomElement(using: &generator)!)"
        let serial = String((0..<8).map { _ in serialCharacters.randomElement(using: &generator)! })
        return Item(name: name, serialNumber: serial, valueInDollars: Int.random(in: 0..<100, using: &generator))
    }

    /// A random item from the system's random source.
    public static func random() -> Item {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }
}
