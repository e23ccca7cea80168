// lavapipe's compute queues (patch 0052): a dispatch on one queue runs
// beside a dispatch that spins on another, as on a GPU, which is what a
// cooperative kernel's forks and the ordinary kernels it lends units to need
// on zink (docs/zink-backend.md, step 3). Each queue binds compute states of
// its own context: one pipeline on every queue at once, pipelines destroyed
// between rounds, and a device of compute queues only.
//
// Run with VK_DRIVER_FILES naming the build's lavapipe (tests/host/on_zink.sh),
// LVP_COMPUTE_QUEUES=4 (the family is lavapipe's only where asked for) and
// LP_NUM_THREADS >= 2: with one compute thread the spinning dispatch holds
// it, nothing can run beside it, and the first test fails.
#include "host_test.hpp"

#include <vulkan/vulkan.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "fill_spv.h"
#include "release_spv.h"
#include "spin_spv.h"

namespace {

constexpr uint32_t compute_family = 1;   // lavapipe's compute-only family
constexpr uint64_t second_ns = 1000000000ull;

// A Vulkan structure of the given type, every other member zero.
template <typename T> T vk_struct(VkStructureType type)
{
   T value{};
   value.sType = type;
   return value;
}

#define VK_CHECK(call)                                                                     \
   do {                                                                                    \
      const VkResult vk_check_result = (call);                                             \
      ASSERT_EQ(vk_check_result, VK_SUCCESS) << #call;                                     \
   } while (0)

struct Instance {
   VkInstance instance = VK_NULL_HANDLE;
   VkPhysicalDevice physical = VK_NULL_HANDLE;
   ~Instance()
   {
      if (instance)
         vkDestroyInstance(instance, nullptr);
   }
};

// The first device whose driver is llvmpipe's (lavapipe).
void open_lavapipe(Instance &out)
{
   auto app = vk_struct<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
   app.apiVersion = VK_API_VERSION_1_1;
   auto info = vk_struct<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
   info.pApplicationInfo = &app;
   VK_CHECK(vkCreateInstance(&info, nullptr, &out.instance));
   uint32_t count = 0;
   VK_CHECK(vkEnumeratePhysicalDevices(out.instance, &count, nullptr));
   std::vector<VkPhysicalDevice> devices(count);
   VK_CHECK(vkEnumeratePhysicalDevices(out.instance, &count, devices.data()));
   for (VkPhysicalDevice device : devices) {
      auto driver = vk_struct<VkPhysicalDeviceDriverProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES);
      auto properties = vk_struct<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
      properties.pNext = &driver;
      vkGetPhysicalDeviceProperties2(device, &properties);
      if (driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE) {
         out.physical = device;
         return;
      }
   }
   FAIL() << "no lavapipe device among " << count
          << " (VK_DRIVER_FILES should name the build's lavapipe)";
}

// A device with `device_queues` (0 or 1) queues of family 0 and
// `compute_queues` of the compute family, and what the tests build on it.
struct Device {
   VkDevice device = VK_NULL_HANDLE;
   VkPhysicalDevice physical = VK_NULL_HANDLE;
   VkCommandPool device_pool = VK_NULL_HANDLE, compute_pool = VK_NULL_HANDLE;
   VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
   VkPipelineLayout layout = VK_NULL_HANDLE;
   VkDescriptorPool descriptor_pool = VK_NULL_HANDLE;
   ~Device()
   {
      if (!device)
         return;
      vkDeviceWaitIdle(device);
      vkDestroyDescriptorPool(device, descriptor_pool, nullptr);
      vkDestroyPipelineLayout(device, layout, nullptr);
      vkDestroyDescriptorSetLayout(device, set_layout, nullptr);
      vkDestroyCommandPool(device, device_pool, nullptr);
      vkDestroyCommandPool(device, compute_pool, nullptr);
      vkDestroyDevice(device, nullptr);
   }
};

void create_device(const Instance &instance, uint32_t device_queues, uint32_t compute_queues,
                   Device &out)
{
   uint32_t count = 0;
   vkGetPhysicalDeviceQueueFamilyProperties(instance.physical, &count, nullptr);
   std::vector<VkQueueFamilyProperties> families(count);
   vkGetPhysicalDeviceQueueFamilyProperties(instance.physical, &count, families.data());
   ASSERT_GT(count, compute_family)
      << "lavapipe has no compute queue family (0052, LVP_COMPUTE_QUEUES unset?)";
   ASSERT_EQ(families[compute_family].queueFlags & VK_QUEUE_GRAPHICS_BIT, 0u);
   ASSERT_NE(families[compute_family].queueFlags & VK_QUEUE_COMPUTE_BIT, 0u);
   ASSERT_GE(families[compute_family].queueCount, compute_queues);

   const std::vector<float> priorities(compute_queues, 1.0f);
   std::vector<VkDeviceQueueCreateInfo> queues;
   if (device_queues) {
      auto info = vk_struct<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
      info.queueFamilyIndex = 0;
      info.queueCount = 1;
      info.pQueuePriorities = priorities.data();
      queues.push_back(info);
   }
   auto info = vk_struct<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
   info.queueFamilyIndex = compute_family;
   info.queueCount = compute_queues;
   info.pQueuePriorities = priorities.data();
   queues.push_back(info);

   auto device_info = vk_struct<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
   device_info.queueCreateInfoCount = uint32_t(queues.size());
   device_info.pQueueCreateInfos = queues.data();
   VK_CHECK(vkCreateDevice(instance.physical, &device_info, nullptr, &out.device));
   out.physical = instance.physical;

   auto pool = vk_struct<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
   pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
   pool.queueFamilyIndex = compute_family;
   VK_CHECK(vkCreateCommandPool(out.device, &pool, nullptr, &out.compute_pool));
   if (device_queues) {
      pool.queueFamilyIndex = 0;
      VK_CHECK(vkCreateCommandPool(out.device, &pool, nullptr, &out.device_pool));
   }

   VkDescriptorSetLayoutBinding binding{};
   binding.binding = 0;
   binding.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
   binding.descriptorCount = 1;
   binding.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
   auto set_info = vk_struct<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
   set_info.bindingCount = 1;
   set_info.pBindings = &binding;
   VK_CHECK(vkCreateDescriptorSetLayout(out.device, &set_info, nullptr, &out.set_layout));
   VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, 2 * sizeof(uint32_t)};
   auto layout_info = vk_struct<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
   layout_info.setLayoutCount = 1;
   layout_info.pSetLayouts = &out.set_layout;
   layout_info.pushConstantRangeCount = 1;
   layout_info.pPushConstantRanges = &push;
   VK_CHECK(vkCreatePipelineLayout(out.device, &layout_info, nullptr, &out.layout));

   VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 16};
   auto descriptor_info = vk_struct<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
   descriptor_info.maxSets = 16;
   descriptor_info.poolSizeCount = 1;
   descriptor_info.pPoolSizes = &size;
   VK_CHECK(vkCreateDescriptorPool(out.device, &descriptor_info, nullptr, &out.descriptor_pool));
}

// A host-visible, coherent storage buffer, mapped.
struct Buffer {
   VkDevice device = VK_NULL_HANDLE;
   VkBuffer buffer = VK_NULL_HANDLE;
   VkDeviceMemory memory = VK_NULL_HANDLE;
   uint32_t *words = nullptr;
   ~Buffer()
   {
      if (!device)
         return;
      vkDestroyBuffer(device, buffer, nullptr);
      vkFreeMemory(device, memory, nullptr);
   }
};

void create_buffer(const Device &device, size_t bytes, Buffer &out)
{
   out.device = device.device;
   auto info = vk_struct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
   info.size = bytes;
   info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
   VK_CHECK(vkCreateBuffer(device.device, &info, nullptr, &out.buffer));
   VkMemoryRequirements needs;
   vkGetBufferMemoryRequirements(device.device, out.buffer, &needs);
   VkPhysicalDeviceMemoryProperties memory;
   vkGetPhysicalDeviceMemoryProperties(device.physical, &memory);
   const VkMemoryPropertyFlags wanted =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
   uint32_t type = 0;
   while (type < memory.memoryTypeCount &&
          (!(needs.memoryTypeBits & (1u << type)) ||
           (memory.memoryTypes[type].propertyFlags & wanted) != wanted))
      ++type;
   ASSERT_LT(type, memory.memoryTypeCount);
   auto allocate = vk_struct<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
   allocate.allocationSize = needs.size;
   allocate.memoryTypeIndex = type;
   VK_CHECK(vkAllocateMemory(device.device, &allocate, nullptr, &out.memory));
   VK_CHECK(vkBindBufferMemory(device.device, out.buffer, out.memory, 0));
   void *mapped = nullptr;
   VK_CHECK(vkMapMemory(device.device, out.memory, 0, VK_WHOLE_SIZE, 0, &mapped));
   out.words = static_cast<uint32_t *>(mapped);
   std::memset(mapped, 0, bytes);
}

template <size_t N>
void create_pipeline(const Device &device, const uint32_t (&spirv)[N], VkPipeline &out)
{
   auto module_info = vk_struct<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
   module_info.codeSize = sizeof(spirv);
   module_info.pCode = spirv;
   VkShaderModule module;
   VK_CHECK(vkCreateShaderModule(device.device, &module_info, nullptr, &module));
   auto info = vk_struct<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
   info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
   info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
   info.stage.module = module;
   info.stage.pName = "main";
   info.layout = device.layout;
   const VkResult result =
      vkCreateComputePipelines(device.device, VK_NULL_HANDLE, 1, &info, nullptr, &out);
   vkDestroyShaderModule(device.device, module, nullptr);
   VK_CHECK(result);
}

// One recorded dispatch of `pipeline` over `groups` work-groups on `buffer`,
// with its fence.
struct Dispatch {
   VkDevice device = VK_NULL_HANDLE;
   VkCommandPool pool = VK_NULL_HANDLE;
   VkCommandBuffer commands = VK_NULL_HANDLE;
   VkFence fence = VK_NULL_HANDLE;
   ~Dispatch()
   {
      if (!device)
         return;
      vkDestroyFence(device, fence, nullptr);
      vkFreeCommandBuffers(device, pool, 1, &commands);
   }
};

void record(const Device &device, VkCommandPool pool, VkPipeline pipeline, const Buffer &buffer,
            uint32_t groups, uint32_t scale, uint32_t offset, Dispatch &out)
{
   out.device = device.device;
   out.pool = pool;
   auto set_info = vk_struct<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
   set_info.descriptorPool = device.descriptor_pool;
   set_info.descriptorSetCount = 1;
   set_info.pSetLayouts = &device.set_layout;
   VkDescriptorSet set;
   VK_CHECK(vkAllocateDescriptorSets(device.device, &set_info, &set));
   VkDescriptorBufferInfo buffer_info{buffer.buffer, 0, VK_WHOLE_SIZE};
   auto write = vk_struct<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
   write.dstSet = set;
   write.descriptorCount = 1;
   write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
   write.pBufferInfo = &buffer_info;
   vkUpdateDescriptorSets(device.device, 1, &write, 0, nullptr);

   auto allocate = vk_struct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
   allocate.commandPool = pool;
   allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
   allocate.commandBufferCount = 1;
   VK_CHECK(vkAllocateCommandBuffers(device.device, &allocate, &out.commands));
   auto begin = vk_struct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
   VK_CHECK(vkBeginCommandBuffer(out.commands, &begin));
   vkCmdBindPipeline(out.commands, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
   vkCmdBindDescriptorSets(out.commands, VK_PIPELINE_BIND_POINT_COMPUTE, device.layout, 0, 1, &set,
                           0, nullptr);
   const uint32_t push[2] = {scale, offset};
   vkCmdPushConstants(out.commands, device.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push),
                      push);
   vkCmdDispatch(out.commands, groups, 1, 1);
   VK_CHECK(vkEndCommandBuffer(out.commands));
   auto fence = vk_struct<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
   VK_CHECK(vkCreateFence(device.device, &fence, nullptr, &out.fence));
}

void submit(VkQueue queue, const Dispatch &dispatch)
{
   auto info = vk_struct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
   info.commandBufferCount = 1;
   info.pCommandBuffers = &dispatch.commands;
   VK_CHECK(vkQueueSubmit(queue, 1, &info, dispatch.fence));
}

bool finished(const Dispatch &dispatch, uint64_t timeout_ns)
{
   return vkWaitForFences(dispatch.device, 1, &dispatch.fence, VK_TRUE, timeout_ns) == VK_SUCCESS;
}

// spin.comp's words: flag, started, done.
enum { flag, started, done };

uint32_t read_word(const Buffer &buffer, int word)
{
   return __atomic_load_n(&buffer.words[word], __ATOMIC_SEQ_CST);
}

// Submits spin.comp on `spin_queue`, waits until it runs, then release.comp
// on `release_queue`: the release must end within seconds, and the spinner
// with it. A release that does not end means its queue waited for the
// spinner; the host then sets the flag itself, so the test fails rather
// than hangs.
void release_beside_a_spinner(const Device &device, VkQueue spin_queue, VkCommandPool spin_pool,
                              VkQueue release_queue, VkCommandPool release_pool)
{
   Buffer words;
   ASSERT_NO_FATAL_FAILURE(create_buffer(device, 3 * sizeof(uint32_t), words));
   VkPipeline spin = VK_NULL_HANDLE, release = VK_NULL_HANDLE;
   ASSERT_NO_FATAL_FAILURE(create_pipeline(device, spin_spv, spin));
   ASSERT_NO_FATAL_FAILURE(create_pipeline(device, release_spv, release));
   Dispatch spinner, releaser;
   ASSERT_NO_FATAL_FAILURE(record(device, spin_pool, spin, words, 1, 0, 0, spinner));
   ASSERT_NO_FATAL_FAILURE(record(device, release_pool, release, words, 1, 0, 0, releaser));

   ASSERT_NO_FATAL_FAILURE(submit(spin_queue, spinner));
   const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
   while (!read_word(words, started) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
   const bool spinner_started = read_word(words, started) != 0;
   if (spinner_started)
      submit(release_queue, releaser);
   const bool released = spinner_started && finished(releaser, 10 * second_ns);
   if (!released)
      __atomic_store_n(&words.words[flag], 2u, __ATOMIC_SEQ_CST);
   const bool spinner_finished = finished(spinner, 10 * second_ns);
   vkDeviceWaitIdle(device.device);
   vkDestroyPipeline(device.device, spin, nullptr);
   vkDestroyPipeline(device.device, release, nullptr);

   ASSERT_TRUE(spinner_started) << "the spinning dispatch did not start within 10 s";
   EXPECT_TRUE(released) << "the second queue's dispatch waited for the spinning one";
   EXPECT_TRUE(spinner_finished);
   EXPECT_EQ(read_word(words, done), 1u);
}

VkQueue get_queue(const Device &device, uint32_t family, uint32_t index)
{
   VkQueue queue = VK_NULL_HANDLE;
   vkGetDeviceQueue(device.device, family, index, &queue);
   return queue;
}

uint32_t queue_family_count(const Instance &instance)
{
   uint32_t count = 0;
   vkGetPhysicalDeviceQueueFamilyProperties(instance.physical, &count, nullptr);
   return count;
}

// Other Vulkan programs see lavapipe as it was: one queue family.
TEST(LavapipeQueues, TheComputeFamilyIsAskedFor)
{
   const char *asked = getenv("LVP_COMPUTE_QUEUES");
   ASSERT_NE(asked, nullptr) << "run with LVP_COMPUTE_QUEUES=4";
   const std::string saved = asked;
   unsetenv("LVP_COMPUTE_QUEUES");
   uint32_t families_unasked = 0;
   {
      Instance instance;
      open_lavapipe(instance);
      families_unasked = queue_family_count(instance);
   }
   setenv("LVP_COMPUTE_QUEUES", saved.c_str(), 1);
   EXPECT_EQ(families_unasked, 1u);
   Instance instance;
   ASSERT_NO_FATAL_FAILURE(open_lavapipe(instance));
   EXPECT_EQ(queue_family_count(instance), 2u);
}

TEST(LavapipeQueues, ComputeQueuesRunBesideEachOther)
{
   Instance instance;
   ASSERT_NO_FATAL_FAILURE(open_lavapipe(instance));
   Device device;
   ASSERT_NO_FATAL_FAILURE(create_device(instance, 1, 2, device));
   release_beside_a_spinner(device, get_queue(device, compute_family, 0), device.compute_pool,
                            get_queue(device, compute_family, 1), device.compute_pool);
}

TEST(LavapipeQueues, TheDeviceQueueRunsBesideAComputeQueue)
{
   Instance instance;
   ASSERT_NO_FATAL_FAILURE(open_lavapipe(instance));
   Device device;
   ASSERT_NO_FATAL_FAILURE(create_device(instance, 1, 1, device));
   release_beside_a_spinner(device, get_queue(device, compute_family, 0), device.compute_pool,
                            get_queue(device, 0, 0), device.device_pool);
}

// Rounds of fill.comp on every queue at once, each queue with its own scale
// and offset, from pipelines created and destroyed round by round: each
// queue builds the compute state of a pipeline on its own context, and a
// destroyed pipeline's states go with it.
void fill_on_every_queue(uint32_t device_queues, uint32_t compute_queues)
{
   Instance instance;
   ASSERT_NO_FATAL_FAILURE(open_lavapipe(instance));
   Device device;
   ASSERT_NO_FATAL_FAILURE(create_device(instance, device_queues, compute_queues, device));
   struct Lane {
      VkQueue queue;
      VkCommandPool pool;
      Buffer values;
   };
   std::vector<Lane> lanes(device_queues + compute_queues);
   for (uint32_t i = 0; i < lanes.size(); ++i) {
      const bool device_queue = i < device_queues;
      lanes[i].queue = device_queue ? get_queue(device, 0, 0)
                                    : get_queue(device, compute_family, i - device_queues);
      lanes[i].pool = device_queue ? device.device_pool : device.compute_pool;
   }
   constexpr uint32_t groups = 64, items = groups * 64;
   for (Lane &lane : lanes)
      ASSERT_NO_FATAL_FAILURE(create_buffer(device, items * sizeof(uint32_t), lane.values));

   for (uint32_t round = 0; round < 8; ++round) {
      VkPipeline fill = VK_NULL_HANDLE;
      ASSERT_NO_FATAL_FAILURE(create_pipeline(device, fill_spv, fill));
      std::vector<Dispatch> dispatches(lanes.size());
      for (uint32_t i = 0; i < lanes.size(); ++i)
         ASSERT_NO_FATAL_FAILURE(record(device, lanes[i].pool, fill, lanes[i].values, groups,
                                        i + 2, round * 1000 + i, dispatches[i]));
      for (uint32_t i = 0; i < lanes.size(); ++i)
         ASSERT_NO_FATAL_FAILURE(submit(lanes[i].queue, dispatches[i]));
      for (uint32_t i = 0; i < lanes.size(); ++i)
         ASSERT_TRUE(finished(dispatches[i], 60 * second_ns)) << "round " << round << " queue " << i;
      vkDestroyPipeline(device.device, fill, nullptr);
      VK_CHECK(vkResetDescriptorPool(device.device, device.descriptor_pool, 0));
      for (uint32_t i = 0; i < lanes.size(); ++i) {
         uint32_t wrong = 0;
         for (uint32_t item = 0; item < items; ++item)
            wrong += lanes[i].values.words[item] != item * (i + 2) + round * 1000 + i;
         ASSERT_EQ(wrong, 0u) << "round " << round << " queue " << i;
      }
   }
}

TEST(LavapipeQueues, OnePipelineOnEveryQueueAtOnce)
{
   fill_on_every_queue(1, 4);
}

TEST(LavapipeQueues, ADeviceOfComputeQueuesOnly)
{
   fill_on_every_queue(0, 2);
}

} // namespace

int main(int argc, char **argv)
{
   testing::InitGoogleTest(&argc, argv);
   return host_test::run_all();
}
