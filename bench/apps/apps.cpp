// The eleven application/input pairs of the evaluation, in a fixed order:
// the graph applications first, then the work-stealing ones (as in FSE'17
// Table 1), so that tables and CSV files always list them the same way.
#include "app.hpp"

#include <iterator>

namespace ck_apps {

std::vector<std::unique_ptr<Application>> all_applications(const AppConfig &config)
{
   std::vector<std::unique_ptr<Application>> apps = graph_applications(config);
   std::vector<std::unique_ptr<Application>> stealing = work_stealing_applications(config);
   apps.insert(apps.end(), std::make_move_iterator(stealing.begin()),
               std::make_move_iterator(stealing.end()));
   return apps;
}

} // namespace ck_apps
