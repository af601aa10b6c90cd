/// How much one client, and everyone together, may ask of the kitchen. Windows and the menu API
/// share the caps on dishes and on orders in preparation, which the ``RestaurantController``
/// checks as it takes an order; the menu API alone has the rate per client address, as windows
/// already have the server's rate of messages.
///
/// ```swift
/// var limits = OrderLimits()
/// limits.maximumOrdersInPreparation = 40      // a small kitchen
/// let restaurant = try await RestaurantController(menu: menu, storage: storage, limits: limits, logger: logger)
/// ```
public struct OrderLimits: Equatable, Sendable {
    /// The most dishes one order may have, and the order the windows share may hold.
    public var maximumDishesPerOrder: Int
    /// The most orders the kitchen makes at once; more are refused until one is ready.
    public var maximumOrdersInPreparation: Int
    /// The most orders from one client address the kitchen makes at once (menu API orders).
    public var maximumOrdersInPreparationPerClient: Int
    /// How many orders one client address may send at once before ``orderInterval`` applies.
    public var orderBurst: Int
    /// How often one client address may send an order once its burst is spent.
    public var orderInterval: Duration
    /// The most client addresses whose rate is kept at once; an address idle long enough to have
    /// its whole burst back is forgotten first.
    public var maximumTrackedClients: Int
    /// How long a ready order waits in the kitchen list to be picked up, counted from its ready
    /// time, before it leaves by itself. Real time on the kitchen's clock: people take as long to
    /// come for an order however quick the kitchen is (`--kitchen-minute` does not shorten it).
    public var pickupTime: Duration

    /// Limits a restaurant's customers would not notice: 50 dishes an order, 100 orders in the
    /// kitchen and 10 per client address, 5 orders at once and then one every 2 seconds from an
    /// address, 10,000 addresses followed, and a ready order kept 10 minutes for pick-up.
    public init(
        maximumDishesPerOrder: Int = 50, maximumOrdersInPreparation: Int = 100, maximumOrdersInPreparationPerClient: Int = 10,
        orderBurst: Int = 5, orderInterval: Duration = .seconds(2), maximumTrackedClients: Int = 10_000,
        pickupTime: Duration = .seconds(10 * 60)
    ) {
        self.maximumDishesPerOrder = maximumDishesPerOrder
        self.maximumOrdersInPreparation = maximumOrdersInPreparation
        self.maximumOrdersInPreparationPerClient = maximumOrdersInPreparationPerClient
        self.orderBurst = orderBurst
        self.orderInterval = orderInterval
        self.maximumTrackedClients = maximumTrackedClients
        self.pickupTime = pickupTime
    }
}
