#include "checked_option.h"

#include "cli_messages.h"

#include <fmt/format.h>

#include <type_traits>

namespace llama::options {

namespace {
// The name a message uses: the long one ("-n,--max-tokens" -> "--max-tokens").
std::string longName(const std::string& names) {
    const size_t comma = names.rfind(',');
    return comma == std::string::npos ? names : names.substr(comma + 1);
}

// Runs `read` on every value typed; its std::invalid_argument becomes CLI11's ValidationError.
template <class Read>
auto checked(const std::string& names, Read read) {
    return [name = longName(names), read](const std::string& text) {
        try {
            read(text);
        } catch (const std::invalid_argument& e) {
            throw CLI::ValidationError(name, e.what());
        }
    };
}
}  // namespace

CLI::Option* addInteger(CLI::App& app, const std::string& names, int& target, const IntegerRange& range, const std::string& help) {
    auto read = checked(names, [&target, range](const std::string& text) { target = int(parseInteger(text, range)); });
    return app.add_option_function<std::string>(names, read, help)->type_name("INT")->default_str(std::to_string(target));
}

CLI::Option* addIntegerList(CLI::App& app, const std::string& names, std::vector<int>& target, const IntegerRange& range,
                            const std::string& help) {
    auto read = checked(names, [&target, range](const std::string& text) { target.push_back(int(parseInteger(text, range))); });
    return app
        .add_option_function<std::vector<std::string>>(
            names,
            [&target, read](const std::vector<std::string>& texts) {
                target.clear();
                for (const auto& text : texts) read(text);
            },
            help)
        ->type_name("INT");
}

CLI::Option* addUnsigned(CLI::App& app, const std::string& names, uint64_t& target, const std::string& expected, const std::string& help) {
    auto read = checked(names, [&target, expected](const std::string& text) { target = parseUnsigned(text, expected); });
    return app.add_option_function<std::string>(names, read, help)->type_name("UINT")->default_str(std::to_string(target));
}

template <class T>
CLI::Option* addRealAs(CLI::App& app, const std::string& names, T& target, const RealRange& range, const std::string& help) {
    auto read = checked(names, [&target, range](const std::string& text) {
        if constexpr (std::is_same_v<T, float>) target = parseFloat(text, range);
        else target = parseReal(text, range);
    });
    return app.add_option_function<std::string>(names, read, help)->type_name("NUMBER")->default_str(fmt::format("{}", target));
}

CLI::Option* addReal(CLI::App& app, const std::string& names, float& target, const RealRange& range, const std::string& help) {
    return addRealAs(app, names, target, range, help);
}
CLI::Option* addReal(CLI::App& app, const std::string& names, double& target, const RealRange& range, const std::string& help) {
    return addRealAs(app, names, target, range, help);
}

std::optional<int> parseCommandLine(CLI::App& app, int argc, char** argv) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == int(CLI::ExitCodes::Success)) return app.exit(e);  // --help, --version
        fmt::print(stderr, "{}\nRun with --help to list the options.\n", inOurWords(e));
        return 1;
    }
    return std::nullopt;
}

}  // namespace llama::options
