#include "pg/connection_options.h"

namespace pgrig::pg {

void AddConnectionOptions(CLI::App* app, ConnectionParams* params) {
  app->set_help_flag("--help", "print this help and exit");
  app->add_option("-h,--host", params->host, "database server host or socket directory");
  app->add_option("-p,--port", params->port, "database server port");
  app->add_option("-U,--username", params->user, "database user name");
  app->add_option("-d,--db,--dbname", params->dbname, "database name, conninfo string or URI");
}

void AddConnectionOptions(CLI::App* app, ConnectionParams* params, std::string* operand) {
  AddConnectionOptions(app, params);
  app->add_option("dbname", *operand, "database name (as psql takes it)");
}

Status UseDatabaseOperand(ConnectionParams* params, const std::string& operand) {
  if (operand.empty()) return Status::Ok();
  if (!params->dbname.empty()) return DatabaseNamedTwice(operand);
  params->dbname = operand;
  return Status::Ok();
}

}  // namespace pgrig::pg
