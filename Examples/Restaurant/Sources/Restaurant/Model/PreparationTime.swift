/// How long the kitchen takes for an order, in minutes.
///
/// The dishes are cooked side by side, so an order takes as long as its slowest dish, plus a
/// minute to plate every further dish; and the kitchen works through its queue, so every order
/// it is still making adds two minutes:
///
///     preparation time = longest estimated_prep_time of the dishes
///                      + 1 × (number of dishes − 1)
///                      + 2 × (orders in the kitchen not yet ready)
///
/// Three dishes of 10, 15 and 5 minutes in an empty kitchen take 15 + 2 = 17 minutes; with two
/// orders ahead of them, 21.
public enum PreparationTime {
    /// Minutes added for each dish after the first.
    public static let platingMinutesPerDish = 1
    /// Minutes added for each order the kitchen is still making.
    public static let minutesPerOrderAhead = 2

    /// The minutes an order of `dishes` takes with `ordersAhead` orders still in the kitchen.
    public static func minutes(for dishes: [MenuItem], ordersAhead: Int) -> Int {
        let slowest = dishes.map(\.estimatedPrepTime).max() ?? 0
        return slowest + platingMinutesPerDish * max(dishes.count - 1, 0) + minutesPerOrderAhead * max(ordersAhead, 0)
    }
}
