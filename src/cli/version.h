#ifndef PGRIG_CLI_VERSION_H_
#define PGRIG_CLI_VERSION_H_
namespace pgrig::cli {
inline constexpr const char* kVersion = "0.1.0";
}  // namespace pgrig::cli
#endif  // PGRIG_CLI_VERSION_H_
