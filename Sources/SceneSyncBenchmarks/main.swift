import GRDB
import ArgumentParser
@main struct M { static func main() {} }
