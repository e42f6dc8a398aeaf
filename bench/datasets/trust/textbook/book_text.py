# -*- coding: utf-8 -*-
"""Source text of the textbook "Practical Robot Software: A First Course in ROS 2".

Each entry: (chapter_number, section, page, text). Chunks are numbered per chapter
in the order given here. build.py turns this into chunks.json.
Lines wrapped in backticks are code lines as they appear in the book.
"""

CHAPTER_TITLES = {
    1: "Introduction to ROS 2",
    2: "Nodes and Topics",
    3: "Services and Actions",
    4: "Launch Files and Parameters",
    5: "TF2 and Coordinate Frames",
    6: "Navigation with Nav2",
}

CHUNKS = []


def c(ch, section, page, text):
    CHUNKS.append((ch, section, page, text.strip()))


# ---------------------------------------------------------------- Chapter 1
c(1, "What Is ROS?", 1, """
The Robot Operating System (ROS) is, despite its name, not an operating system in the traditional sense. It does not schedule processes or manage memory; those jobs are still done by a conventional operating system such as Linux. ROS is instead a collection of libraries, command-line tools and conventions that help developers build robot software out of many small programs that exchange data with one another. A typical mobile robot might run one program that talks to the motor controller, another that reads a laser scanner, a third that estimates where the robot is, and a fourth that plans a path. ROS gives these programs a common way to find each other, a common set of message types, and a common set of tools for inspecting what is going on while the robot runs.

This book is about ROS 2, the second generation of the framework. Whenever we write ROS 2 we mean the current generation specifically, and we write ROS 1 when we need to refer to the original framework. Where a statement is true of both, we simply write ROS. We assume that you are comfortable with Python and can read basic C++, and that you have used a Linux terminal before. No previous robotics experience is required, although some familiarity with vectors and angles will make Chapter 5 easier. Every example in the book has been tested on a real robot called Pipit, which we introduce at the end of this chapter.
""")

c(1, "A Short History of ROS", 2, """
ROS grew out of robotics research at Stanford University around 2007 and was developed into a general framework at Willow Garage, a robotics research company in California, from 2008 onwards. The first official ROS 1 distribution, Box Turtle, was released in March 2010. Over the following decade ROS 1 became the most widely used software framework in research robotics, but its design showed its age. Every ROS 1 system depended on a single central process, the master, which had to be running before any other program could find its peers; if the master failed, the whole system failed with it. ROS 1 also had no support for real-time control and behaved poorly on lossy wireless networks.

Work on ROS 2 began in 2014 with the aim of solving these problems without abandoning the ideas that had made ROS 1 successful. Rather than writing its own networking layer, ROS 2 was built on top of an existing industrial middleware standard, which we describe later in this chapter. The first ROS 2 distribution, Ardent Apalone, appeared in December 2017. The last ROS 1 distribution, Noetic Ninjemys, was released in 2020 and reached its end of life in May 2025, so all new projects should start with ROS 2. Today the development of ROS is coordinated by Open Robotics, with contributions from hundreds of companies, universities and individual volunteers.
""")

c(1, "Distributions and Releases", 3, """
ROS 2 is released in distributions: versioned sets of packages that are tested together and installed as a unit. Each distribution has a two-word name made of an adjective and a species of turtle, with the initial letters advancing through the alphabet, and a new distribution is released every year on 23 May, which is World Turtle Day. Releases in even-numbered years are Long-Term Support (LTS) distributions and receive updates for five years. Releases in odd-numbered years are supported for only about eighteen months and are intended for users who want newer features and are willing to upgrade often.

This book covers three distributions. Humble Hawksbill was released in May 2022; it is an LTS distribution, targets Ubuntu 22.04 (Jammy Jellyfish) and is supported until May 2027. Iron Irwini was released in May 2023 as a short-term distribution, also on Ubuntu 22.04, and reached its end of life in November 2024. Jazzy Jalisco was released in May 2024; it is an LTS distribution, targets Ubuntu 24.04 (Noble Numbat) and is supported until May 2029. All examples in this book were written for Jazzy and tested again on Humble. Where the two distributions differ, a grey box labelled
""")

c(1, "Distributions and Releases", 4, """
"Humble note" explains what to change. Since Iron is no longer supported, we mention it only when a feature first appeared there.

Choosing a distribution is usually a matter of matching the operating system on your robot. Each distribution is built and tested against one primary Ubuntu release, and although it is possible to build ROS 2 from source on other systems, binary packages are only provided for the primary platform. If your robot computer already runs Ubuntu 22.04 and you cannot upgrade it, use Humble; for any new installation we recommend Jazzy on Ubuntu 24.04. Mixing distributions on one robot is not supported: message definitions can change between distributions, and two nodes built against different distributions may fail to communicate even when they use the same topic names.

Packages are named after the distribution they belong to. The core command-line tools for Jazzy, for example, come from the package ros-jazzy-ros2cli, and the same package for Humble is ros-humble-ros2cli. Third-party packages follow the same pattern, which makes it easy to see at a glance which distribution a package was built for. When you search for documentation online, always check which distribution it was written for, because tutorials written for older releases often use commands or options that have since changed.
""")

c(1, "ROS 2 Architecture", 5, """
A running ROS 2 system is called the ROS graph: a network of nodes that exchange data through topics, services and actions, and that are configured through parameters. Each of these concepts has a chapter of its own later in the book. In this section we look at the software layers that sit underneath your own code.

At the top are the client libraries. You will write most of your nodes using rclpy, the Python client library, or rclcpp, the C++ client library. Both are thin wrappers around rcl, a common core written in C that implements behaviour shared by all languages, such as parameter handling and name resolution. Because the logic lives in rcl, a node written in Python and a node written in C++ behave identically from the point of view of the rest of the system.

Below rcl sits the ROS Middleware interface (RMW), a small C interface that hides the details of the communication library actually used to move data between processes. Each supported middleware provides an RMW implementation, and the choice of implementation can be made when a node starts, without recompiling anything. Finally, at the bottom, the middleware itself takes care of discovery, serialisation and transport.

An important consequence of this design is that ROS 2 has no central master process. Nodes discover each other directly through the middleware, so there is no single program whose failure brings down the whole system.
""")

c(1, "The Middleware Layer", 6, """
All of the middleware implementations shipped with ROS 2 are based on the Data Distribution Service (DDS), a publish-subscribe standard maintained by the Object Management Group. DDS was designed for systems such as air-traffic control and industrial automation, where many processes on many computers must exchange data reliably and with predictable timing. DDS vendors agree on a common wire protocol, so in principle different implementations can talk to one another, although in practice we recommend using the same implementation on every computer in a system.

Three implementations are covered in this book. The default in both Humble and Jazzy is eProsima Fast DDS, whose RMW implementation is called rmw_fastrtps_cpp. Eclipse Cyclone DDS is provided by rmw_cyclonedds_cpp and is popular on robots with several network interfaces because its configuration is simple. RTI Connext DDS, provided by rmw_connextdds, is a commercial product that requires a licence for most uses.

The implementation is selected with the RMW_IMPLEMENTATION environment variable. To run a node with Cyclone DDS, install the package ros-jazzy-rmw-cyclonedds-cpp and then type `export RMW_IMPLEMENTATION=rmw_cyclonedds_cpp` in the terminal before starting the node. The command `ros2 doctor --report` prints, among many other things, the middleware currently in use. Remember to set the variable in every terminal, because nodes using different implementations are not guaranteed to discover each other.
""")

c(1, "Domains and Discovery", 7, """
When a node starts, the middleware announces it on the local network and listens for announcements from other nodes. This process, called discovery, is what allows a subscriber in one process to find a publisher in another without any central registry. By default every node on the same network can discover every other node, which is convenient on a single robot but quickly becomes a problem in a teaching laboratory where twenty students run the same examples at the same time.

ROS 2 solves this with domains. Every node belongs to exactly one domain, identified by a small integer read from the ROS_DOMAIN_ID environment variable when the node starts. If the variable is not set, the domain ID is 0. Nodes in different domains cannot see each other at all, even when they run on the same computer. Because the DDS layer derives the UDP port numbers it uses from the domain ID, starting at port 7400 and adding 250 for each domain, not every integer is safe. On Linux we recommend staying in the range 0 to 101; higher values can collide with the ephemeral ports that the operating system hands out to other programs.

In our laboratory each student sets ROS_DOMAIN_ID to the number of their bench, for example `export ROS_DOMAIN_ID=17`, and adds this line to the file ~/.bashrc so that it applies to every new terminal.
""")

c(1, "Domains and Discovery", 8, """
Domains separate groups of nodes, but sometimes you want to limit how far discovery reaches at all. Since Iron, ROS 2 provides the ROS_AUTOMATIC_DISCOVERY_RANGE environment variable for this. It accepts four values. SUBNET, the default, lets nodes discover others anywhere on the local subnet. LOCALHOST restricts discovery to nodes on the same computer, which is ideal when you are experimenting on a laptop connected to a shared network. OFF disables automatic discovery completely, and SYSTEM_DEFAULT leaves the decision to the middleware's own configuration. When automatic discovery is limited, you can still name individual computers to connect to by listing their addresses, separated by semicolons, in ROS_STATIC_PEERS, for example `export ROS_STATIC_PEERS='192.168.1.20;192.168.1.21'`.

Humble note: ROS_AUTOMATIC_DISCOVERY_RANGE does not exist in Humble. Use `export ROS_LOCALHOST_ONLY=1` instead to keep discovery on the local machine. In Jazzy ROS_LOCALHOST_ONLY still works but is deprecated.

Discovery relies on multicast network traffic. Many university and corporate wireless networks block multicast, and the symptom is always the same: nodes on one computer work perfectly, but nodes on two computers cannot see each other, even though the computers can ping each other. If this happens, first check that both computers use the same ROS_DOMAIN_ID and the same RMW implementation, and then ask your network administrator whether multicast is allowed, or use ROS_STATIC_PEERS.
""")

c(1, "Installing ROS 2", 10, """
The recommended way to install Jazzy is from the binary Debian packages on Ubuntu 24.04. First make sure that the Ubuntu Universe repository is enabled with `sudo add-apt-repository universe`, then add the ROS 2 package repository and its signing key as described in the official installation instructions. After `sudo apt update`, you can choose between two main variants. The package ros-jazzy-desktop installs the core libraries together with graphical tools such as RViz, the demo nodes and the turtlesim tutorial simulator; this is the variant you should install on a development laptop. The package ros-jazzy-ros-base installs only the core libraries, message packages and command-line tools without any graphical programs, and is the better choice for the computer on board a robot. You will also want ros-dev-tools, which provides the build tool colcon, the dependency tool rosdep and other utilities used throughout this book.

ROS 2 installs itself under /opt/ros/jazzy and does not change your environment automatically. In every new terminal you must run `source /opt/ros/jazzy/setup.bash` before using any ROS 2 command. Most people add this line to ~/.bashrc. To check the installation, open two terminals and run `ros2 run demo_nodes_cpp talker` in the first and `ros2 run demo_nodes_py listener` in the second. The talker publishes a message containing "Hello World" and a counter once per second, and the listener prints each message it receives. Because one node is written in C++ and the other in Python, this simple test also confirms that both client libraries work.
""")

c(1, "Workspaces and colcon", 11, """
Your own packages live in a workspace, which is simply a directory containing a subdirectory called src. In this book we use ~/ros2_ws, so source code goes into ~/ros2_ws/src. The build tool colcon is run from the top of the workspace, never from inside src. A plain `colcon build` builds every package it finds and creates three new directories next to src: build holds intermediate files, install holds the finished packages, and log holds the output of each build.

Several options are used so often that they are worth memorising. `colcon build --symlink-install` installs Python files and other resources as symbolic links to the files in src, so that changes to a Python node or a launch file take effect without building again; new files and changes to C++ code still require a build. `colcon build --packages-select pipit_base` builds only the named package, and `--packages-up-to pipit_base` builds that package together with everything it depends on. `colcon test` runs the tests of all packages.

A workspace is used together with the ROS 2 installation on which it builds. The installation under /opt/ros/jazzy is called the underlay, and your workspace is an overlay on top of it. After building, run `source install/setup.bash` from the workspace directory to make your packages available. Packages in the overlay take precedence over packages with the same name in the underlay. A common source of confusing errors is building in a terminal where the overlay has already been sourced; we recommend building in a fresh terminal in which only the underlay has been sourced.
""")

c(1, "Managing Dependencies with rosdep", 12, """
Packages declare what they depend on in their package.xml file, but declaring a dependency does not install it. The rosdep tool reads these declarations, maps each dependency key to the name of a system package, and installs whatever is missing. Before its first use on a computer, rosdep must be initialised once with `sudo rosdep init`, and its database must be downloaded with `rosdep update`; the update step should be repeated every few weeks and never run with sudo.

To install the dependencies of every package in a workspace, run the following command from the top of the workspace:

`rosdep install --from-paths src --ignore-src -r -y`

The option --from-paths src tells rosdep to look at all packages under src. The option --ignore-src prevents it from trying to install packages that are already present as source code in the workspace. The option -r continues even if some dependencies cannot be resolved, and -y answers yes to every question from the package manager so the command can run unattended. When you clone a package written by someone else, running rosdep should always be the first thing you do after cloning; it saves a great deal of time spent decoding error messages about missing headers and Python modules.

rosdep resolves keys against the distribution named in the ROS_DISTRO environment variable, which is set automatically when you source the setup file of an installation.
""")

c(1, "Creating a Package", 13, """
A package is the unit in which ROS 2 code is built, installed and shared. Each package lives in its own directory and contains at least a package.xml manifest. New packages are created with `ros2 pkg create`, which must be run inside the src directory of your workspace. The build type is chosen with the --build-type option. If you do not give it, the build type is ament_cmake, which is used for C++ packages and for packages that define interfaces. For a package containing only Python code, use --build-type ament_python. The option --node-name creates a simple executable that prints a greeting, and --license records the licence in the manifest. For example:

`ros2 pkg create --build-type ament_python --license Apache-2.0 --node-name hello_node pipit_tools`

The generated package.xml uses format 3 of the manifest schema. Dependencies are listed with tags whose names say when they are needed: <build_depend> for building, <exec_depend> for running, <test_depend> for tests only, and <depend> as a shorthand for a dependency that is needed both to build and to run. An ament_python package also contains a setup.py file, a setup.cfg file and an empty marker file in the resource directory, which ament uses to find the package after it has been installed. Executables in a Python package are declared in the console_scripts list inside the entry_points argument of setup.py, in the form 'hello_node = pipit_tools.hello_node:main'.
""")

c(1, "The ros2 Command-Line Tool", 14, """
Almost everything you do with a running ROS 2 system goes through a single command, ros2, followed by a verb that selects an area of functionality and then by the arguments of that verb. `ros2 --help` lists all verbs, and `ros2 <verb> --help`, for example `ros2 topic --help`, describes one verb in detail. Tab completion works for verbs, package names, executables and topic names, so it is worth pressing the Tab key often.

The verbs used most in the early chapters are pkg, run and doctor. `ros2 pkg list` prints every package that the current environment can see, and `ros2 pkg executables turtlesim` lists the executables in one package. `ros2 run <package> <executable>` starts a single executable; you will use it constantly, starting with the turtlesim simulator:

`ros2 run turtlesim turtlesim_node`

In a second terminal, `ros2 run turtlesim turtle_teleop_key` lets you drive the turtle with the arrow keys. The teleoperation program must have keyboard focus, so keep its terminal selected while you drive. Finally, `ros2 doctor` checks your environment for common problems, such as mismatched distributions or network settings, and prints warnings for anything suspicious. Run it whenever something behaves strangely and you do not know where to start.
""")

c(1, "The Pipit Robot", 15, """
Throughout this book we use a small mobile robot called Pipit, designed by Harbour Robotics for teaching. Pipit is a differential-drive robot: it has two independently driven wheels on a common axis and a passive caster at the rear, and it steers by turning its wheels at different speeds. Each drive wheel has a radius of 0.035 m, and the distance between the centres of the two wheels, the wheel separation, is 0.30 m. The motors are fitted with encoders producing 1440 ticks per wheel revolution. The maximum linear speed is 0.5 m/s and the maximum angular speed is 2.0 rad/s.

Pipit carries two sensors. A two-dimensional laser scanner, the LD-360, produces 360 range samples per revolution, one per degree, at 10 Hz, and measures distances from 0.12 m to 12.0 m. An Inertial Measurement Unit (IMU) measures angular velocity and linear acceleration. The on-board computer is a Raspberry Pi 5 with 8 GB of memory running Ubuntu 24.04 and Jazzy, and the robot is powered by a 14.8 V lithium-ion battery pack that lasts about 2.5 hours of typical use.

If you do not have a Pipit, every example can also be run with the simulated robot from the pipit_sim package, which publishes the same topics with the same names and rates as the real robot. The software packages for Pipit, including pipit_base, pipit_description and pipit_bringup, are introduced in the chapters where they are first needed.
""")

# ---------------------------------------------------------------- Chapter 2
c(2, "Nodes", 17, """
A node is a single participant in the ROS graph. Each node should have one clearly defined purpose: a driver for one sensor, a controller for one motor, a planner. Small nodes are easier to test, easier to reuse and easier to replace than one large program that does everything. A node is not necessarily a process; several nodes can share one process, although in this book each executable contains a single node.

Every node has a name, and names must be unique within the graph. ROS 2 does not prevent you from starting two nodes with the same name, but the behaviour of such a system is undefined: parameters and services may reach the wrong node, and many tools print a warning that several nodes share a name. If you need two copies of the same node, give them different names or put them in different namespaces, as described in Chapter 4.

Two commands show you which nodes are running. `ros2 node list` prints the fully qualified name of every node that has been discovered. `ros2 node info /talker` prints everything about one node, grouped into six sections: subscribers, publishers, service servers, service clients, action servers and action clients. Each entry shows a name and an interface type. Start the talker and listener from Chapter 1 and try both commands now; notice that even these simple nodes offer several services that you did not write. We explain where these come from in Chapter 3.
""")

c(2, "Writing a Node in Python", 18, """
A minimal Python node is a class derived from rclpy.node.Node. The constructor passes the node name to the base class and creates whatever publishers, subscribers and timers the node needs. The following node publishes a std_msgs/msg/String message on the topic chatter twice per second:

`class MinimalPublisher(Node):`
`    def __init__(self):`
`        super().__init__('minimal_publisher')`
`        self.pub = self.create_publisher(String, 'chatter', 10)`
`        self.timer = self.create_timer(0.5, self.on_timer)`
`        self.count = 0`

The on_timer method fills a String message, publishes it with self.pub.publish(msg) and increments the counter. The third argument of create_publisher, here 10, is the queue depth, which is explained later in this chapter.

The main function always follows the same pattern. It calls rclpy.init() to initialise the client library, creates the node, and hands it to rclpy.spin(node), which processes callbacks until the program is interrupted with Ctrl+C. Afterwards it calls node.destroy_node() and rclpy.shutdown().

Nodes should report what they are doing through the logger returned by self.get_logger() rather than with print. The logger supports five severity levels: DEBUG, INFO, WARN, ERROR and FATAL. Messages below the current level are discarded, and the default level is INFO. To see debug messages from a node, start it with `ros2 run pipit_tools hello_node --ros-args --log-level debug`.
""")

c(2, "Writing a Node in C++", 19, """
The same publisher in C++ derives from rclcpp::Node. In the constructor the publisher is created with `create_publisher<std_msgs::msg::String>("chatter", 10)` and the timer with `create_wall_timer(500ms, std::bind(&MinimalPublisher::on_timer, this))`, where 500ms is a std::chrono duration literal. The main function calls rclcpp::init(argc, argv), then `rclcpp::spin(std::make_shared<MinimalPublisher>())`, and finally rclcpp::shutdown().

A C++ node must also be registered in the CMakeLists.txt file of its package. The file needs `find_package(rclcpp REQUIRED)` and `find_package(std_msgs REQUIRED)` for each dependency, an add_executable line that names the executable and its source file, and an ament_target_dependencies line that links the executable against its dependencies. Most importantly, the executable must be installed into the directory where ros2 run looks for it:

`install(TARGETS talker DESTINATION lib/${PROJECT_NAME})`

Forgetting this line is the most common reason why a package builds without errors but `ros2 run` reports that it cannot find the executable. The same dependencies must also appear in package.xml, so that rosdep can install them.

Whether to write a node in Python or C++ is mostly a question of taste and performance. Python is quicker to write and is used for most examples in this book. C++ is the better choice for drivers and for nodes that process large amounts of data, such as point clouds, at high rates, because it avoids the overhead of the Python interpreter.
""")

c(2, "Topics and Messages", 21, """
Topics are the main way in which data flows through a ROS 2 system. A topic is a named channel to which any number of nodes may publish messages and from which any number of nodes may subscribe. Publishers and subscribers are anonymous: a publisher does not know who, if anyone, receives its messages, and a subscriber does not know who produced them. Every topic carries exactly one message type, and all publishers and subscribers on a topic must agree on that type.

Topic names are resolved much like file paths. A name beginning with a slash, such as /scan, is absolute. A name without a leading slash, such as scan, is relative and is placed inside the namespace of the node that uses it, so a node in the namespace /pipit that subscribes to scan actually receives /pipit/scan. A name beginning with a tilde, such as ~/status, is private and is expanded with the node's own name.

Pipit publishes and subscribes to the following topics, which we use throughout the book. The base subscribes to velocity commands on /cmd_vel of type geometry_msgs/msg/Twist. The laser scanner publishes sensor_msgs/msg/LaserScan messages on /scan at 10 Hz. The base publishes wheel odometry as nav_msgs/msg/Odometry on /odom at 50 Hz. The IMU publishes sensor_msgs/msg/Imu messages on /imu/data at 100 Hz, and the battery monitor publishes sensor_msgs/msg/BatteryState on /battery_state at 1 Hz.
""")

c(2, "Writing a Subscriber", 22, """
A subscriber is created with create_subscription, which takes the message type, the topic name, a callback, and either a queue depth or a profile of delivery settings. The following node prints the distance to the nearest obstacle seen by Pipit's laser scanner:

`self.sub = self.create_subscription(LaserScan, 'scan', self.on_scan, qos_profile_sensor_data)`

The callback receives each message as its only argument. A LaserScan message contains the array ranges with one distance per beam, together with the fields angle_min, angle_increment, range_min and range_max that describe the geometry of the scan. Readings outside the interval from range_min to range_max are invalid and must be ignored; on Pipit these limits are 0.12 m and 12.0 m. The nearest valid reading is then simply the smallest remaining value in ranges.

The subscriber uses qos_profile_sensor_data rather than a plain queue depth, because the laser driver publishes with settings intended for sensor data. If you pass a plain depth of 10 instead, the subscriber is created without complaint but receives nothing; the reason is explained in the section on compatibility later in this chapter.

Callbacks should return quickly. While a callback is running, a single-threaded node cannot process any other message, so a callback that takes one second to run will cause a 10 Hz scan subscriber to fall behind and eventually discard messages. If you need to do heavy computation, store the latest message in the callback and process it in a timer, or move the work to a separate thread.
""")

c(2, "Inspecting Topics", 23, """
The ros2 topic verb is the most useful debugging tool in ROS 2. `ros2 topic list` prints the names of all topics currently known in the graph, and `ros2 topic list -t` adds the message type of each topic in square brackets. `ros2 topic echo /odom` subscribes to a topic and prints every message it receives in YAML form until you press Ctrl+C. Several options make its output easier to read: --once exits after the first message, --no-arr replaces the contents of arrays with their length, which is useful for a LaserScan with its 360 ranges, and --field prints only one field of the message, as in `ros2 topic echo /odom --field pose.pose.position`.

Two further commands measure traffic. `ros2 topic hz /scan` prints the average rate at which messages arrive, together with the minimum and maximum interval and the standard deviation; on Pipit it should report close to 10 Hz. By default the average is computed over a window of the last 10000 messages, and --window 50 restricts it to the last 50, so that changes in rate show up quickly. `ros2 topic bw /scan` reports the bandwidth used by a topic in bytes per second.

Finally, `ros2 topic info /scan` shows the message type and the number of publishers and subscribers. With --verbose it also lists each publisher and subscriber by node name, together with its delivery settings. We return to this command when we discuss why a subscriber may fail to receive any messages.
""")

c(2, "Publishing from the Command Line", 24, """
You can also publish messages without writing any code. The command `ros2 topic pub` takes a topic name, a message type and the message contents written in YAML:

`ros2 topic pub /cmd_vel geometry_msgs/msg/Twist "{linear: {x: 0.2}, angular: {z: 0.5}}"`

Fields that you do not mention are set to zero. A Twist message contains two vectors, linear and angular; for a ground robot such as Pipit only linear.x, the forward speed in metres per second, and angular.z, the turning rate in radians per second, have any effect. The command above therefore makes Pipit drive forward at 0.2 m/s while turning left at 0.5 rad/s.

By default ros2 topic pub publishes once per second, that is at 1 Hz, until you press Ctrl+C. The option --rate, or -r, changes the rate; --once publishes a single message and exits, and --times 5 publishes five messages and exits. The publishing rate matters on Pipit. As a safety measure, the base stops the motors whenever it has received no velocity command for 0.5 s, a value set by its cmd_vel_timeout parameter. At the default rate of 1 Hz the robot therefore drives for half a second, stops, and starts again when the next message arrives, which looks like a stutter. Use `--rate 10` to drive smoothly.

For manual driving, the teleop_twist_keyboard package is more convenient. Run `ros2 run teleop_twist_keyboard teleop_twist_keyboard` and use the keys shown on screen to drive; it publishes Twist messages on /cmd_vel.
""")

c(2, "Message Interfaces", 25, """
The structure of every message type is described by a simple text definition. `ros2 interface list` prints every message, service and action type available, and `ros2 interface show geometry_msgs/msg/Twist` prints the definition of one type, which for Twist consists of just two lines: Vector3 linear and Vector3 angular. Each Vector3 in turn contains three float64 fields named x, y and z.

Type names have three parts: the package that defines the type, the kind of interface, which is msg for messages, srv for services and action for actions, and the type name itself. Field definitions are built from a small set of primitive types: bool, byte, char, the floating-point types float32 and float64, the signed integers int8, int16, int32 and int64, the unsigned integers uint8 to uint64, and the text types string and wstring. Any field can also be an array. An unbounded array is written int32[] and may hold any number of elements, a bounded array int32[<=5] holds at most five, and a fixed-size array int32[5] holds exactly five.

Many messages begin with a field of type std_msgs/msg/Header. A header contains a timestamp, called stamp and of type builtin_interfaces/msg/Time, and a string frame_id naming the coordinate frame in which the data are expressed. The meaning of frame_id becomes important in Chapter 5. As a rule, any message that describes a measurement taken at a particular time and place should contain a header.
""")

c(2, "Custom Messages", 27, """
When no existing type fits your data, you can define your own. Custom interfaces must be generated by a package with the ament_cmake build type, even if all the nodes that use them are written in Python. It is good practice to put all interfaces of a project into a dedicated package whose name ends in _interfaces; for our robot this is pipit_interfaces. Message definitions go into a directory called msg, one file per type, and the file name, which becomes the type name, must be written in CamelCase. Field names use lower case with underscores, and constants are written in upper case with an equals sign. Pipit's raw encoder readings, for example, are published with the following definition in msg/WheelTicks.msg:

`int32 TICKS_PER_REV=1440`
`std_msgs/Header header`
`int32 left`
`int32 right`

To generate code for the new type, CMakeLists.txt needs `find_package(rosidl_default_generators REQUIRED)` and a call `rosidl_generate_interfaces(${PROJECT_NAME} "msg/WheelTicks.msg" DEPENDENCIES std_msgs)`. The package.xml needs three additions: rosidl_default_generators as a <buildtool_depend>, rosidl_default_runtime as an <exec_depend>, and the line <member_of_group>rosidl_interface_packages</member_of_group>. After building and sourcing the workspace, `ros2 interface show pipit_interfaces/msg/WheelTicks` should print the definition back to you.
""")

c(2, "Quality of Service", 29, """
ROS 2 lets every publisher and subscriber state how messages should be delivered. These settings are grouped into policies, and a complete set of policies is called a Quality of Service (QoS) profile. Choosing the right QoS settings makes the difference between a system that works over a poor wireless link and one that does not. This book covers the four policies you will meet in everyday work: history, depth, reliability and durability. ROS 2 defines several further policies for specialised applications, but they are beyond the scope of this book.

The history policy determines how many messages are kept when they cannot be delivered immediately, for example because a subscriber is still busy. With keep_last, which is the default, only the most recent messages are stored, and the depth policy gives their number; when the queue is full, the oldest message is dropped to make room for a new one. With keep_all, every message is kept until it has been delivered, limited only by resource limits configured in the middleware. The integer that you pass to create_publisher or create_subscription, as in all examples so far, is the depth of a keep_last history; all other policies then take their default values.

The reliability policy decides what happens when a message is lost on its way to a subscriber, and ROS 2 offers
""")

c(2, "Quality of Service", 30, """
two settings for it. With reliable, the default, the publisher keeps resending a message until the subscriber acknowledges it, so no message is lost as long as both remain connected. The price is extra network traffic and higher latency when the link is poor. With best_effort, each message is sent once and lost messages are simply not replaced. This is the right choice for high-rate sensor data, where a fresh measurement is more useful than an old one that arrives late.

The durability policy decides whether a subscriber that joins late receives messages that were published before it existed. With volatile, the default, it does not: a subscriber sees only messages published after it connected. With transient_local, the publisher keeps its last depth messages and delivers them to every subscriber that connects later, as long as the publisher itself is still running. This behaviour, known as latching in ROS 1, is ideal for data that is published rarely but needed by everyone, such as a map or the robot description. In this book the /map topic and the /robot_description topic both use transient_local durability.

Take care not to confuse the two policies. Reliability is about messages lost in transit between a publisher and a subscriber that already know each other; durability is about messages that were published before the subscriber existed. A reliable, volatile subscriber that starts late will still miss everything published before it started.
""")

c(2, "QoS Profiles", 31, """
Rather than setting every policy by hand, most code uses one of the predefined QoS profiles. The default profile, used whenever you pass a plain integer, is keep_last with a depth of 10, reliable and volatile. The sensor data profile, available in Python as qos_profile_sensor_data from the rclpy.qos module, is keep_last with a depth of 5, best_effort and volatile; nearly all sensor drivers, including Pipit's laser and IMU drivers, publish with this profile. The services profile, used for service requests and responses, is reliable and volatile with keep_last and a depth of 10. The parameters profile is like the services profile but with a much larger depth of 1000, so that a burst of parameter changes is not lost. Finally, the system default profile takes all its values from the configuration of the middleware itself.

When you need a combination that none of these profiles provides, build a QoSProfile object yourself. In Python:

`from rclpy.qos import QoSProfile, ReliabilityPolicy, DurabilityPolicy, HistoryPolicy`
`qos = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)`

This particular profile is the one we use for topics that carry a single, rarely changing value that late subscribers need, such as the name of the current map. Pass the object in place of the integer depth when you create the publisher or subscription. In C++ the equivalent is rclcpp::QoS, which offers chainable methods such as `rclcpp::QoS(10).best_effort().transient_local()`.
""")

c(2, "QoS Compatibility", 32, """
Publishers and subscribers do not have to use identical QoS settings, but their settings must be compatible. ROS 2 follows a request-offered model: the publisher offers a level of service and the subscriber requests one, and a connection is made only if what is offered is at least as good as what is requested. For reliability this means that a reliable publisher can serve both reliable and best_effort subscribers, but a best_effort publisher cannot serve a reliable subscriber, because it cannot promise the reliability that the subscriber demands. For durability, a transient_local publisher can serve both kinds of subscriber, while a volatile publisher cannot serve a transient_local subscriber.

Incompatible QoS is the most common reason why a subscriber receives nothing although the topic exists and has a publisher. No error is raised; the two sides simply never connect. rclpy and rclcpp do log a warning that a publisher or subscription offering or requesting an incompatible QoS has been found, but it is easy to miss among other output. The fastest way to diagnose the problem is `ros2 topic info /scan --verbose`, which prints the reliability, durability, history and depth of every publisher and subscriber on the topic, so a mismatch is visible at a glance.

The command-line tools have their own QoS settings. Since the laser driver publishes with best_effort, `ros2 topic echo /scan` adapts to the publisher automatically, but you can also choose explicitly with --qos-reliability best_effort, or use --qos-profile sensor_data.
""")

c(2, "Timers and Rates", 34, """
Most nodes do their work periodically, and timers are the right tool for this. In Python, `self.create_timer(0.1, self.on_timer)` calls on_timer every 0.1 seconds, that is at 10 Hz; the first argument is always a period in seconds, not a frequency. In C++ the corresponding call is create_wall_timer, which takes a std::chrono duration. Timer callbacks are executed by the same mechanism as subscription callbacks, so a timer in a node that is never spun never fires.

Timers created with create_timer follow the node's clock. Normally this is the system clock, but when the parameter use_sim_time is true the node's clock follows simulated time instead, so that timers run at the correct rate relative to a simulation that may be slower or faster than real time. Chapter 4 explains this parameter.

Do not use time.sleep inside a callback to wait between actions. A sleeping callback blocks the whole node: no other messages are processed and no other timers fire until it returns. ROS 2 also offers Rate objects, created with node.create_rate(10), which provide a sleep method that keeps a loop running at a fixed frequency. A rate may only be used in a thread of its own; calling its sleep method in the thread that spins the node blocks that thread forever, because the rate itself depends on callbacks that can no longer run. For almost every periodic task, a timer is simpler and safer than a loop with a rate.
""")

c(2, "Visualizing the Graph", 35, """
Text output is not always the easiest way to understand a system with many nodes. The program rqt_graph, started with `ros2 run rqt_graph rqt_graph` or simply `rqt_graph`, draws the ROS graph as a diagram, with nodes as ellipses and topics as rectangles connected by arrows in the direction of data flow. By default it hides debugging nodes and topics, such as those created by ros2 topic echo itself; uncheck the Hide options at the top of the window to see them. The graph is not updated automatically when nodes start or stop, so press the refresh button after a change.

Every log message written through a node's logger is also published on the /rosout topic, so that the messages of all nodes can be collected in one place. The rqt_console tool subscribes to /rosout and shows the messages in a table that can be filtered by severity level and by node name. It is particularly useful when many nodes are started together from a launch file and their terminal output is interleaved.

For data that has a spatial meaning, such as laser scans, paths and the robot's position, the three-dimensional visualiser RViz is the tool of choice. It is started with the command rviz2. Every RViz display needs to know in which coordinate frame to draw, and the Fixed Frame setting in the Global Options panel defaults to map. On a robot without a map, such as Pipit before Chapter 6, change it to odom, otherwise RViz reports that it cannot find the frame and draws nothing.
""")

# ---------------------------------------------------------------- Chapter 3
c(3, "Choosing an Interface", 37, """
Topics are ideal for continuous streams of data, but many interactions between nodes are not streams. Sometimes a node needs to ask another node to do something and wait for an answer; sometimes it needs to start a task that takes a long time, watch its progress and possibly cancel it. ROS 2 provides services for the first situation and actions for the second.

A service is a remote procedure call: a client sends a request, and a server sends back exactly one response. Services are suited to operations that finish quickly, such as resetting a counter, querying the state of a device or switching a mode. An action represents a goal that is pursued over time: a client sends a goal, the server reports feedback while it works, and finally returns a result. The client can cancel the goal at any time. Navigating to a position, docking with a charger and moving an arm along a trajectory are typical actions.

Our rule of thumb is simple. If an operation may take longer than about one second, or if the caller may want to cancel it or see its progress, use an action. Otherwise, use a service. Do not use services for data that changes continuously: calling a service ten times per second to read a sensor wastes effort that a topic avoids. Finally, values that configure a node, such as a maximum speed, belong in parameters, which are the subject of Chapter 4.
""")

c(3, "Services", 38, """
Each service has a name and a type, just like a topic. Unlike a topic, a service should be provided by exactly one server, although any number of clients may call it. A call does not broadcast anything: the request goes to the server, and the response goes back only to the client that sent it. A service server must be running before it can be called. Clients therefore usually wait until the server is available before sending their first request, as shown later in this chapter.

Several ready-made service types cover common needs, so check them before defining your own. The std_srvs package provides three. std_srvs/srv/Empty has neither request nor response fields and is used purely as a trigger, for example to reset something. std_srvs/srv/Trigger also has an empty request, but its response contains a bool named success and a string named message, so that the server can report whether the action worked and why not. std_srvs/srv/SetBool has a request with a single bool named data and the same response fields as Trigger; it is used to switch something on or off. For tutorials, the example_interfaces package provides example_interfaces/srv/AddTwoInts, whose request contains two int64 fields a and b and whose response contains their int64 sum.

Pipit offers several services. The base provides /pipit/reset_odometry of type std_srvs/srv/Empty, which sets the odometry position back to zero, and the motor driver provides /pipit/enable_motors of type std_srvs/srv/SetBool.
""")

c(3, "Service Definitions", 39, """
A service type is defined in a .srv file in the srv directory of an interface package. The file contains two parts separated by a line of three dashes: the fields of the request above the line and the fields of the response below it. Either part may be empty, as in std_srvs/srv/Empty, but the separator line must always be present.

Pipit's battery monitor provides a service that returns the state of the battery on request. It is defined in pipit_interfaces/srv/GetBattery.srv as follows:

`bool include_cells`
`---`
`float32 percentage`
`float32 voltage`
`float32[] cell_voltages`

If include_cells is true, the response also contains the voltage of each of the four cells of the battery pack; otherwise cell_voltages is left empty. The percentage is given between 0 and 100, and the voltage in volts; a fully charged pack reads about 16.8 V, and the monitor warns when the pack falls below 13.2 V.

Service files are registered with rosidl_generate_interfaces exactly like message files, by adding "srv/GetBattery.srv" to the list of files. Code generation creates a request type and a response type for each service. In Python these are available as GetBattery.Request and GetBattery.Response; in C++ they are pipit_interfaces::srv::GetBattery::Request and pipit_interfaces::srv::GetBattery::Response.
""")

c(3, "Writing a Service Server", 40, """
A service server is created with the node method create_service, which takes the service type, the service name and a callback. The callback receives two arguments, the request and an empty response object, fills in the response and must return it. Forgetting the return statement is a frequent mistake; the client then receives no valid response. The following Python server adds two integers:

`self.srv = self.create_service(AddTwoInts, 'add_two_ints', self.on_add)`

`def on_add(self, request, response):`
`    response.sum = request.a + request.b`
`    self.get_logger().info(f'{request.a} + {request.b}')`
`    return response`

In C++ the server is created with create_service<example_interfaces::srv::AddTwoInts>, and the callback receives shared pointers to the request and response and returns nothing, because the response is modified in place.

A service callback runs in the executor of the server's node just like a subscription callback, so the advice from Chapter 2 applies here too: it should finish quickly. While it runs, the node cannot handle other callbacks in the same callback group, and the client is left waiting. If the requested operation needs a long time, the server should either start the work and return immediately with a response that says so, or, better, the operation should be offered as an action instead of a service.
""")

c(3, "Writing a Service Client", 41, """
A client is created with create_client, which takes the service type and name. Before sending a request, the client should make sure that a server exists. The usual pattern is a loop:

`self.cli = self.create_client(AddTwoInts, 'add_two_ints')`
`while not self.cli.wait_for_service(timeout_sec=1.0):`
`    self.get_logger().info('service not available, waiting again...')`

Each call to wait_for_service waits for at most the given time, here one second, and returns True as soon as the server has been discovered.

The request is then sent with call_async, which returns a future immediately, without waiting for the response:

`req = AddTwoInts.Request()`
`req.a, req.b = 2, 3`
`future = self.cli.call_async(req)`

In a simple script that runs outside any callback, the easiest way to wait for the response is `rclpy.spin_until_future_complete(self, future)`, after which future.result() holds the response object, here with sum equal to 5. The client also offers a synchronous method, call, which blocks until the response arrives. It looks more convenient, but it must never be used inside a callback of a node that is spun by a single-threaded executor, for reasons that we explain shortly. In C++ the corresponding method is async_send_request, which also returns a future.
""")

c(3, "Services from the Command Line", 42, """
Like topics, services can be examined and used from the command line. `ros2 service list` prints all services in the graph, and `ros2 service list -t` adds their types. `ros2 service type /add_two_ints` prints the type of one service, and `ros2 service find std_srvs/srv/Trigger` does the reverse, listing all services of a given type. To call a service, give its name, its type and the request in YAML form:

`ros2 service call /add_two_ints example_interfaces/srv/AddTwoInts "{a: 2, b: 3}"`

The tool waits for the server, sends the request, and prints both the request and the response, in this case one with sum=5. For a service with an empty request the YAML part may be left out, so `ros2 service call /pipit/reset_odometry std_srvs/srv/Empty` is enough to reset Pipit's odometry.

If you run `ros2 service list` while only the talker from Chapter 1 is running, you will see more services than you might expect. Every node automatically offers six services for managing its parameters, named after the node: describe_parameters, get_parameter_types, get_parameters, list_parameters, set_parameters and set_parameters_atomically. For the talker, these appear as /talker/describe_parameters, /talker/get_parameters and so on. The ros2 param tool described in Chapter 4 uses these services behind the scenes, so you rarely need to call them directly.
""")

c(3, "Avoiding Deadlocks", 43, """
One of the most common problems for newcomers is a node that freezes the first time it calls a service. The cause is almost always the same. Suppose a timer callback calls a service with the synchronous call method, or with call_async followed by spin_until_future_complete. The callback now waits for the response. The response does arrive over the network, but delivering it to the waiting client requires the executor to run another callback, and the executor is still busy running the timer callback that is waiting. In a single-threaded executor the node waits forever. This situation is called a deadlock, and no error message is printed.

There are two reliable ways to avoid it. The first is to stay asynchronous: call call_async inside the callback, attach a function to the returned future with future.add_done_callback, and return immediately. The function runs when the response arrives and can continue the work from there. The second is to use a MultiThreadedExecutor and put the client into a different callback group from the callback that makes the call, so that the response can be processed in a second thread while the first one waits. Callback groups are explained in the next section.

The same problem arises with any blocking wait inside a callback, including waiting for an action result or using a Rate object, as described in Chapter 2. As a rule, never block inside a callback unless you know exactly which thread will deliver what you are waiting for.
""")

c(3, "Executors and Callback Groups", 44, """
An executor is the component that waits for events, such as incoming messages, expired timers and service requests, and runs the corresponding callbacks. rclpy.spin creates a SingleThreadedExecutor, which runs one callback at a time in the thread that called spin. A MultiThreadedExecutor runs callbacks in a pool of threads. In rclpy the number of threads defaults to the number of processor cores reported by the operating system; in rclcpp it defaults to the number of threads the hardware can run concurrently. Using a multi-threaded executor takes only a few lines:

`executor = MultiThreadedExecutor()`
`executor.add_node(node)`
`executor.spin()`

Having several threads does not by itself mean that callbacks run in parallel. Each callback belongs to a callback group, and the group decides what may run at the same time. In a MutuallyExclusiveCallbackGroup, callbacks never run concurrently with one another. In a ReentrantCallbackGroup, any callbacks may run concurrently, including several instances of the same callback. Every node has a default callback group, which is mutually exclusive, and every callback you create belongs to it unless you say otherwise. That is why adding a MultiThreadedExecutor alone does not cure the deadlock described above.

To assign a callback to another group, create the group in the constructor and pass it with the callback_group argument, which create_subscription, create_timer, create_service and create_client all accept. For the service client of the previous section, placing the client in its own MutuallyExclusiveCallbackGroup is enough.
""")

c(3, "Actions", 46, """
Actions are designed for long-running tasks. An action has three parts: a goal, sent by the client to start the task; feedback, sent by the server periodically while it works; and a result, sent by the server once when the task ends. As with services, each action should be offered by a single action server, and any number of action clients may use it.

Actions are not a separate communication mechanism. Each action is built from three services and two topics, all named after the action with the infix _action. For an action named /fibonacci, the client sends its goal through the service /fibonacci/_action/send_goal, requests the result through /fibonacci/_action/get_result, and cancels through /fibonacci/_action/cancel_goal. The server publishes feedback on the topic /fibonacci/_action/feedback and the status of all goals on /fibonacci/_action/status. These services and topics are hidden: ros2 topic list does not show them unless you add the option --include-hidden-topics, and the same applies to the service list.

Because a goal can take a long time, a single action server may be working on several goals at once, and each goal is identified by a unique ID chosen by the client when it sends the goal. The client uses this ID to ask for the result and to cancel, and the server includes it in every feedback message so that
""")

c(3, "Action Definitions", 47, """
each client can pick out the feedback that belongs to its own goals.

An action type is defined in a .action file in the action directory of an interface package. The file has three sections separated by lines of three dashes, in a fixed order: the goal comes first, then the result, and the feedback comes last. The classic tutorial example, Fibonacci, is defined like this:

`int32 order`
`---`
`int32[] sequence`
`---`
`int32[] partial_sequence`

The goal says how many numbers of the sequence to compute, the result contains the complete sequence, and each feedback message contains the part computed so far.

Pipit's docking behaviour is offered as an action of type pipit_interfaces/action/Dock. Its goal contains a single field, string dock_id, naming the docking station to use. The result contains bool success and float32 final_error, the remaining distance in metres between the charging contacts when docking ended. The feedback contains float32 distance_remaining and string phase, which names the current stage of the manoeuvre. Action files are added to rosidl_generate_interfaces in the same way as message and service files. From each action, code generation creates goal, result and feedback types, available in Python as Dock.Goal, Dock.Result and Dock.Feedback.
""")

c(3, "Goal States", 48, """
Every goal passes through a sequence of states, which clients can follow through the status topic. When a client sends a goal, the server first decides whether to accept it. A rejected goal ends immediately. An accepted goal enters the ACCEPTED state and moves to EXECUTING when the server starts working on it. From EXECUTING a goal ends in one of three terminal states: SUCCEEDED if the server completed it, ABORTED if the server gave up because of an error, and CANCELED if it stopped in response to a cancel request. While a cancel request is being processed, the goal is in the CANCELING state. A result can only be obtained once a goal has reached a terminal state.

The server controls two of these decisions through callbacks. The goal callback receives each new goal and returns GoalResponse.ACCEPT or GoalResponse.REJECT; a docking server might reject a goal naming an unknown dock. The cancel callback receives each cancel request and returns CancelResponse.ACCEPT or CancelResponse.REJECT. Both callbacks are optional, and their defaults in rclpy are worth remembering: if you provide no goal callback, every goal is accepted, and if you provide no cancel callback, every cancel request is rejected. A server that should be cancellable must therefore provide a cancel callback that accepts the request, and its execute callback must check for cancellation regularly, as shown in the next section.
""")

c(3, "Writing an Action Server", 49, """
An action server is created with the ActionServer class from the rclpy.action module, passing the node, the action type, the action name and the execute callback:

`self._server = ActionServer(self, Fibonacci, 'fibonacci', self.execute, cancel_callback=self.on_cancel)`

The execute callback receives a goal handle, through which it reads the goal, publishes feedback and finally reports the outcome. For the Fibonacci action it looks like this in outline:

`def execute(self, goal_handle):`
`    feedback = Fibonacci.Feedback()`
`    feedback.partial_sequence = [0, 1]`
`    for i in range(1, goal_handle.request.order):`
`        if goal_handle.is_cancel_requested:`
`            goal_handle.canceled()`
`            return Fibonacci.Result()`
`        feedback.partial_sequence.append(...)`
`        goal_handle.publish_feedback(feedback)`
`        time.sleep(1)`
`    goal_handle.succeed()`
`    result = Fibonacci.Result()`
`    result.sequence = feedback.partial_sequence`
`    return result`

Before returning, the callback must call exactly one of goal_handle.succeed(), goal_handle.abort() or goal_handle.canceled() to set the terminal state; if it calls none of them, the goal is reported as aborted. The sleep in this example stands in for real work. It is acceptable here, unlike in a timer callback, because the execute callback of an action server is expected to run for the whole duration of a goal; but to keep the node responsive while it does, spin the node with a MultiThreadedExecutor so that cancel requests and other callbacks can be handled in parallel.
""")

c(3, "Writing an Action Client", 50, """
The client side uses the ActionClient class, created with the node, the action type and the action name. Like a service client, it should wait for the server before sending anything, using wait_for_server, which accepts an optional timeout_sec argument. A goal is then sent with send_goal_async, which can be given a callback that is called for each feedback message:

`self._client = ActionClient(self, Fibonacci, 'fibonacci')`
`self._client.wait_for_server()`
`goal = Fibonacci.Goal(order=10)`
`future = self._client.send_goal_async(goal, feedback_callback=self.on_feedback)`
`future.add_done_callback(self.on_goal_response)`

Sending a goal happens in two steps, and beginners often overlook the first. The future returned by send_goal_async does not contain the result; it completes as soon as the server has decided whether to accept the goal, and it yields a goal handle. In on_goal_response the client checks goal_handle.accepted, and only if the goal was accepted does it call goal_handle.get_result_async(), which returns a second future that completes when the goal reaches a terminal state. The result message is then available as future.result().result, and the terminal state as future.result().status.

To cancel a goal, call goal_handle.cancel_goal_async(). Whether the goal is actually cancelled depends on the server's cancel callback, described earlier in this chapter.
""")

c(3, "Actions from the Command Line", 51, """
The ros2 action verb mirrors the tools for topics and services. `ros2 action list` prints all actions in the graph, and with -t it adds their types. `ros2 action info /fibonacci` prints the number of action clients and action servers together with the names of the nodes involved. A goal can be sent directly from the terminal:

`ros2 action send_goal /fibonacci action_tutorials_interfaces/action/Fibonacci "{order: 5}" --feedback`

The command prints the goal ID, a message saying whether the goal was accepted, each feedback message if --feedback (or its short form -f) was given, and finally the result and the terminal status. Pressing Ctrl+C while the command is waiting sends a cancel request for the goal.

To try this yourself, start the example server with `ros2 run action_tutorials_py fibonacci_action_server` in one terminal. With order 5 the final result is the sequence 0, 1, 1, 2, 3, 5, and since the example server computes one number per second, the goal takes about four seconds to complete.

`ros2 interface show action_tutorials_interfaces/action/Fibonacci` prints the definition of the action with its three sections, which is a quick way to remind yourself which fields belong in the goal. Remember that the YAML you type on the command line describes only the goal; the result and feedback are produced by the server.
""")

c(3, "Case Study: Docking Pipit", 52, """
We end the chapter with the docking action that Pipit uses to reach its charger. The action server is the node dock_server in the pipit_docking package, and it offers the action /pipit/dock of type pipit_interfaces/action/Dock. If a goal leaves dock_id empty, the server uses the default dock, dock_a; a goal naming a dock that is not in its configuration is rejected.

Docking proceeds in three phases, which the server reports in the phase field of its feedback. In the approach phase the robot drives towards a point 0.5 m in front of the dock at 0.1 m/s. In the align phase it turns on the spot until it faces the dock's charging contacts. In the final phase it drives forward at only 0.03 m/s until the battery monitor reports that charging has started, which the server detects through the power_supply_status field of the messages on /battery_state. Feedback, including distance_remaining, is published at 5 Hz throughout.

The goal succeeds when charging has been detected and the final error is below 0.01 m. If the robot has not docked within 60 s of the goal being accepted, the server stops the motors and aborts the goal. The server accepts cancel requests at any time and stops the robot immediately when it receives one. To dock Pipit from the command line, type:

`ros2 action send_goal /pipit/dock pipit_interfaces/action/Dock "{dock_id: dock_a}" -f`
""")

# ---------------------------------------------------------------- Chapter 4
c(4, "Why Launch Files?", 55, """
Starting a robot with ros2 run quickly becomes tedious. Even Pipit's basic bringup involves a motor driver, a laser driver, an IMU driver, a battery monitor and the robot_state_publisher, each with its own parameters, and a navigation system adds a dozen more nodes. Starting them one by one in separate terminals is slow and error-prone. The ROS 2 launch system starts a whole set of nodes with a single command, passes parameters and remappings to them, and stops all of them together when you press Ctrl+C.

A launch file describes what to start. This book covers two formats for launch files: Python, which is the most powerful and the most common in ROS 2 packages, and XML, which is shorter and easier to read for simple cases. Both formats provide the same basic actions, and a launch file in one format can include a launch file in the other.

Launch files are started with `ros2 launch`, followed by the package name and the file name:

`ros2 launch pipit_bringup bringup.launch.py`

For this to work, the launch file must have been installed into the share directory of its package, as explained later in this chapter. You can also start a launch file that has not been installed by passing its path instead of a package name, as in `ros2 launch ./my_test.launch.py`, which is convenient while you are still experimenting. By convention, launch files are kept in a directory called launch in the package source.
""")

c(4, "Writing a Python Launch File", 56, """
A Python launch file is an ordinary Python module whose name ends in .launch.py and which defines a function called generate_launch_description. The function returns a LaunchDescription object containing a list of actions. The most important action is Node, which starts one executable:

`from launch import LaunchDescription`
`from launch_ros.actions import Node`
`def generate_launch_description():`
`    return LaunchDescription([`
`        Node(package='turtlesim', executable='turtlesim_node', name='sim', namespace='turtlesim1'),`
`        Node(package='turtlesim', executable='turtlesim_node', name='sim', namespace='turtlesim2'),`
`    ])`

This file starts two turtlesim simulators. They share the node name sim, which would be a problem if they were in the same namespace, but because one is in turtlesim1 and the other in turtlesim2, their full names are /turtlesim1/sim and /turtlesim2/sim, and their topics are likewise separated, for example /turtlesim1/turtle1/cmd_vel and /turtlesim2/turtle1/cmd_vel.

The Node action accepts further arguments that correspond to the command-line options of ros2 run: parameters, a list of parameter files and dictionaries; remappings, a list of pairs of names; and arguments, a list of extra command-line arguments. The argument output='screen' sends the node's output to the terminal; without it, output is written only to the log files in ~/.ros/log. Note that the function is only called to build a description; the nodes start later, when the launch system executes the description.
""")

c(4, "Installing Launch Files", 57, """
ros2 launch finds launch files in the share directory of the installed package, not in the source directory, so launch files must be installed. In an ament_cmake package, add the following line to CMakeLists.txt:

`install(DIRECTORY launch DESTINATION share/${PROJECT_NAME})`

In an ament_python package, add an entry to the data_files list in setup.py. With `import os` and `from glob import glob` at the top of the file, the entry reads:

`(os.path.join('share', package_name, 'launch'), glob('launch/*.launch.py'))`

If the launch directory also contains XML launch files, extend the pattern or add a second glob for '*.launch.xml'. The same mechanism is used to install other resource directories that nodes need at run time, such as config for parameter files and urdf for robot descriptions; in this book every package installs its launch and config directories.

If you forget this step, ros2 launch reports that the file was not found in the package's share directory, even though you can see the file in your editor. After adding the install rule, build the package again and source the workspace. If the workspace was built with --symlink-install, later changes to an already installed launch file take effect immediately, but a newly created launch file still requires a build before ros2 launch can find it.
""")

c(4, "Launch Arguments", 58, """
Launch files become reusable through arguments. An argument is declared with DeclareLaunchArgument, which takes a name, an optional default value and an optional description, and its value is referred to with LaunchConfiguration:

`use_sim_time = LaunchConfiguration('use_sim_time')`
`declare_sim_time = DeclareLaunchArgument('use_sim_time', default_value='false', description='Use simulation clock')`

Both the declaration and the nodes that use the value are then added to the LaunchDescription. On the command line, arguments are given as name:=value pairs after the file name:

`ros2 launch pipit_bringup bringup.launch.py use_sim_time:=true`

To find out which arguments a launch file accepts without starting it, use `ros2 launch pipit_bringup bringup.launch.py --show-args`, or the short form -s. The tool lists every declared argument with its description and default value. An argument without a default value must be given on the command line, otherwise the launch fails with an error naming the missing argument.

A LaunchConfiguration is a substitution: a placeholder whose value is determined only when the launch system executes the description, not when generate_launch_description runs. This catches many beginners out. Writing `if LaunchConfiguration('use_rviz') == 'true':` in Python does not work, because at that moment the argument has no value yet. Decisions that depend on launch arguments must instead be expressed with conditions, which are described in the next section. All argument values are strings; the launch system converts them where necessary, for example when a parameter expects a bool.
""")

c(4, "Conditions and Substitutions", 59, """
Any action can be made conditional with the condition argument. IfCondition executes the action only when its expression evaluates to true, and UnlessCondition only when it evaluates to false. Pipit's bringup file starts RViz only when asked to:

`Node(package='rviz2', executable='rviz2', condition=IfCondition(LaunchConfiguration('use_rviz')))`

The expression must evaluate to true or false, written in any capitalisation, or to 1 or 0; any other value causes an error.

Substitutions are also used to build values that are only known on the target system. FindPackageShare('pipit_description') evaluates to the installed share directory of a package, and PathJoinSubstitution joins several parts into a path, so that

`PathJoinSubstitution([FindPackageShare('pipit_description'), 'urdf', 'pipit.urdf.xacro'])`

yields the location of Pipit's robot description wherever the package is installed. Command runs a program and evaluates to its output; Pipit's bringup uses `Command(['xacro ', urdf_path])` to process the description file and passes the result to robot_state_publisher as its robot_description parameter. Note the space after xacro, because the parts are joined without separators. EnvironmentVariable evaluates to the value of an environment variable, with an optional default_value for when the variable is not set.

Never build paths with absolute names such as /home/student/ros2_ws/src. They break as soon as the package is installed on another computer. Using FindPackageShare keeps a launch file portable.
""")

c(4, "Including Launch Files", 60, """
Large systems are described by launch files that include other launch files. Pipit's bringup.launch.py, for example, includes sensors.launch.py, which starts the laser and IMU drivers. Inclusion uses IncludeLaunchDescription together with a launch description source that matches the format of the included file:

`IncludeLaunchDescription(PythonLaunchDescriptionSource([PathJoinSubstitution([FindPackageShare('pipit_bringup'), 'launch', 'sensors.launch.py'])]), launch_arguments={'use_sim_time': use_sim_time}.items())`

For XML files, XMLLaunchDescriptionSource takes the place of PythonLaunchDescriptionSource. The launch_arguments dictionary passes values to the arguments declared in the included file. Arguments that are not passed explicitly are not lost: launch configurations are inherited, so an included file sees the values of all arguments of the file that includes it. This is convenient, but it can also cause surprises when two files use the same argument name for different purposes.

GroupAction collects several actions so that settings can be applied to all of them together. Combined with PushRosNamespace, it places every node started inside the group into a namespace:

`GroupAction([PushRosNamespace('front_camera'), IncludeLaunchDescription(...)])`

The namespace applies only inside the group. This is the standard way to start two copies of the same set of nodes, for example the drivers for two identical cameras, without changing the included launch file at all. Since GroupAction also accepts a condition, a whole group of nodes can be switched on or off with a single launch argument.
""")

c(4, "XML Launch Files", 61, """
For launch files that simply start a few nodes with fixed settings, the XML format is shorter and easier to read. An XML launch file has a name ending in .launch.xml and a single root element, launch:

`<launch>`
`  <arg name="use_sim_time" default="false"/>`
`  <node pkg="turtlesim" exec="turtlesim_node" name="sim" namespace="turtlesim1">`
`    <param name="background_r" value="255"/>`
`    <param name="use_sim_time" value="$(var use_sim_time)"/>`
`    <remap from="/turtlesim1/turtle1/cmd_vel" to="/cmd_vel"/>`
`  </node>`
`  <include file="$(find-pkg-share pipit_bringup)/launch/sensors.launch.py"/>`
`</launch>`

The elements correspond directly to the Python actions. Note that the node element uses the attribute exec, not executable as in Python, and pkg instead of package; these differences are a frequent source of errors when converting a launch file from one format to the other. Launch arguments are declared with arg and read with the substitution $(var name), and $(find-pkg-share package) evaluates to the share directory of a package. The include element can include launch files of either format.

Parameters can be set one by one with param elements, as above, or loaded from a file with `<param from="$(find-pkg-share pipit_bringup)/config/base.yaml"/>`. Conditions are written as attributes, for example if="$(var use_rviz)" or unless="$(var use_rviz)" on any element.

XML launch files are started and installed exactly like Python ones. In this book we use Python for files with conditions or computed values and XML for short files that only list nodes.
""")

c(4, "Parameters", 63, """
Parameters are named configuration values that belong to a node. Every parameter has a name, a type and a value, and a node can read and change its parameters while it runs. Typical parameters are the maximum speed of a robot, the name of a serial port or the frequency at which a node publishes.

A parameter has one of nine types: bool, integer, double, string, byte_array, bool_array, integer_array, double_array or string_array. Integers are 64-bit signed values and doubles are 64-bit floating-point values. A node must declare each parameter before it can be used, stating its name and default value; by default, attempts to set a parameter that has not been declared are rejected, unless the node was created with allow_undeclared_parameters set to true, which we do not recommend. Declaring parameters explicitly documents what a node can be configured with and lets tools such as ros2 param list show it.

The type of a parameter is fixed by its declaration. If a parameter was declared with the default value 0.5, it is a double, and any later attempt to set it to a string or an integer fails with an error that names the expected type. A node that genuinely needs to accept values of different types for one parameter can declare it with a ParameterDescriptor whose dynamic_typing field is true, but such parameters are rare.

Each node has its own parameters, and parameters are not shared between nodes. ROS 2 has no global parameter server as ROS 1 had; if several nodes need the same value, the value must be passed to each of them, which is easily done with a shared parameter file.
""")

c(4, "Declaring and Reading Parameters", 64, """
In Python, a parameter is declared with declare_parameter, which returns the parameter object, and read with get_parameter:

`self.declare_parameter('max_linear_speed', 0.5)`
`speed = self.get_parameter('max_linear_speed').value`

The value attribute returns a Python value of the appropriate type. The longer form get_parameter_value().double_value is also common in examples and returns the same thing for a double. In C++, `declare_parameter<double>("max_linear_speed", 0.5)` both declares the parameter and returns its value.

A third argument to declare_parameter, a ParameterDescriptor from the rcl_interfaces.msg module, attaches additional information. Its description field is shown by ros2 param describe, and its read_only field, when set to true, prevents the parameter from being changed after the node has started; it can still be given a value at startup from the command line or a parameter file. Ranges can be enforced with the floating_point_range and integer_range fields. For example, a FloatingPointRange with from_value 0.0, to_value 1.0 and step 0.0 accepts any double between 0 and 1, since a step of 0.0 means that no step is enforced.

Declare all parameters in the constructor. Read them there, or read them every time they are needed if the node should react to changes. A node that reads a value once in its constructor and stores it in a member variable will not notice if the parameter is changed later, unless it also registers a parameter callback, which we describe at the end of this chapter.
""")

c(4, "Parameters from the Command Line", 65, """
Parameters can be set when a node starts by passing arguments after --ros-args. The option -p sets a single parameter, and --params-file loads a whole file:

`ros2 run pipit_base base_node --ros-args -p max_linear_speed:=0.3`
`ros2 run pipit_base base_node --ros-args --params-file ~/ros2_ws/src/pipit_base/config/base.yaml`

While a node runs, the ros2 param verb inspects and changes its parameters. `ros2 param list` prints the parameters of all nodes, or of one node if a node name is given. `ros2 param get /pipit_base max_linear_speed` prints a single value together with its type, and `ros2 param set /pipit_base max_linear_speed 0.4` changes it. `ros2 param describe /pipit_base max_linear_speed` shows the type, description and constraints of a parameter.

Changes made with ros2 param set last only as long as the node runs. When the node is restarted, it starts again from its defaults and from whatever file or command-line values it was given. To keep a configuration that you have tuned at run time, save it with `ros2 param dump /pipit_base`, which prints all parameters of the node in YAML format to the terminal; redirect the output with > to save it to a file, for example `ros2 param dump /pipit_base > base_tuned.yaml`. A saved file can be loaded into a running node with `ros2 param load /pipit_base base_tuned.yaml`, or passed with --params-file the next time the node starts.
""")

c(4, "Parameter Files", 66, """
A parameter file is a YAML file in which the top-level keys are node names. Under each node name comes the key ros__parameters, written with two underscores, and under that the parameters themselves:

`pipit_base:`
`  ros__parameters:`
`    wheel_radius: 0.035`
`    wheel_separation: 0.30`
`    max_linear_speed: 0.5`

If a node runs in a namespace, its key must include the namespace, as in /robot1/pipit_base. The special key /** is a wildcard that matches every node, so parameters placed under /** are applied to all nodes that load the file. It is commonly used for use_sim_time, which every node should agree on. Parameters given for a node that does not declare them are ignored unless the node allows undeclared parameters.

YAML decides the type of a value from the way it is written, and this is a frequent cause of errors. The value 1 is an integer, while 1.0 is a double. If a node declares max_linear_speed as a double and the file contains max_linear_speed: 1, the node fails to start with an error saying that the parameter has the wrong type. Always write doubles with a decimal point. Similarly, true and false are booleans, but "true" in quotation marks is a string.

In a launch file, the parameters argument of Node takes a list that can mix files and dictionaries, such as `parameters=[params_file, {'use_sim_time': use_sim_time}]`. The entries are applied in order, so a value given in a later entry overrides the same parameter in an earlier one.
""")

c(4, "Case Study: Pipit's Base Parameters", 68, """
The node pipit_base, started by the executable base_node in the package of the same name, drives Pipit's motors, computes wheel odometry and publishes the odom to base_link transform. Its parameters are a good example of a well-documented configuration. The values below are the defaults, stored in config/base.yaml:

wheel_radius (double, 0.035): radius of the drive wheels in metres.
wheel_separation (double, 0.30): distance between the wheel centres in metres.
ticks_per_rev (integer, 1440): encoder ticks per wheel revolution.
max_linear_speed (double, 0.5): largest forward or backward speed in m/s.
max_angular_speed (double, 2.0): largest turning rate in rad/s.
odom_publish_rate (double, 50.0): rate of /odom messages in Hz.
cmd_vel_timeout (double, 0.5): time in seconds without velocity commands after which the motors stop.
publish_tf (bool, true): whether to publish the odom to base_link transform.
odom_frame (string, odom) and base_frame (string, base_link): frame names used in the odometry message and transform.

The three geometric parameters, wheel_radius, wheel_separation and ticks_per_rev, are declared read-only, because they describe the hardware and changing them while the robot drives would corrupt the odometry. They can still be overridden at startup if you fit Pipit with different wheels. Velocity commands larger than the maximum speeds are not rejected but clipped: a command of 0.8 m/s makes the robot drive at 0.5 m/s, and the node logs a warning at most once every five seconds.
""")

c(4, "Parameter Callbacks", 69, """
A node that must react when one of its parameters is changed registers a callback with add_on_set_parameters_callback. The callback receives a list of the parameters about to be set and returns a SetParametersResult from rcl_interfaces.msg. If its successful field is false, none of the parameters in the list are changed, and the text in the reason field is reported back to whoever tried to set them, for example to the user of ros2 param set.

This makes the callback the right place to validate values. pipit_base uses it to enforce the hardware limits of the robot: an attempt to set max_linear_speed above 0.5 or max_angular_speed above 2.0 is rejected with the reason 'exceeds hardware limit'. A sketch of such a callback in Python looks like this:

`def on_params(self, params):`
`    for p in params:`
`        if p.name == 'max_linear_speed' and p.value > 0.5:`
`            return SetParametersResult(successful=False, reason='exceeds hardware limit')`
`    return SetParametersResult(successful=True)`

The callback is called before the new values are stored, so it must not assume that get_parameter already returns the new value. Do not perform long operations in it, and never change other parameters from inside it. Jazzy also provides add_pre_set_parameters_callback, which may modify the list of parameters before validation, and add_post_set_parameters_callback, which is called after the new values have been stored and is the right place to update member variables. Humble note: only add_on_set_parameters_callback is available in Humble.
""")

c(4, "Simulated Time and Remapping", 70, """
Every node has a parameter called use_sim_time, declared automatically by the client library, with the default value false. While it is false, the node's clock follows the computer's system clock. When it is set to true, the node's clock instead follows the time published on the /clock topic, of type rosgraph_msgs/msg/Clock, by a simulator. Until the first message arrives on /clock, the node's time is zero. All nodes in a system must agree on this setting: if the simulator's nodes use simulated time and your own node uses the system clock, timestamps differ by years and transforms cannot be looked up. For this reason use_sim_time is usually passed to every node from a single launch argument, as shown earlier in this chapter.

Remapping changes the names a node uses without changing its code. On the command line, remapping rules follow --ros-args and the option -r:

`ros2 run pipit_tools nearest_obstacle --ros-args -r scan:=/front/scan`

The same mechanism renames the node itself with the special name __node, as in -r __node:=left_base, and moves it into a namespace with __ns, as in -r __ns:=/robot1; both names start with two underscores. In a Python launch file, remappings are given as a list of pairs, `remappings=[('scan', '/front/scan')]`, and the node name and namespace have their own arguments, name and namespace. Remapping is the standard way to connect two nodes that were written independently and use different names for the same data.
""")

# ---------------------------------------------------------------- Chapter 5
c(5, "Why Coordinate Frames?", 73, """
A robot deals with many coordinate frames at once. Pipit's laser scanner measures distances relative to itself, its wheels move the body of the robot relative to the point where it started, and a map describes the world relative to some fixed origin. To decide whether an obstacle seen by the laser lies in the robot's path, or where on the map the robot currently is, software must be able to convert positions from one frame into another, and because the robot moves, those conversions change over time.

The tf2 library solves this problem once for the whole system. Nodes that know the relationship between two frames broadcast it as a transform, and nodes that need a conversion ask tf2 for it. tf2 collects all transforms into a single structure, the transform tree, and can compute the transform between any two frames in the tree by chaining the transforms along the path that connects them, even if no node ever published that particular pair directly.

The tree has strict rules. Every frame has exactly one parent, except the root of the tree, which has none; a frame may have any number of children. Loops are not allowed, and all frames must be connected to a single tree. If two nodes publish transforms that give the same frame two different parents, tf2 alternates between them and lookups produce inconsistent results. When you design the frames of a robot, therefore, first decide which node is responsible for each transform, and make sure that no transform is published by more than one node.
""")

c(5, "Conventions", 74, """
ROS conventions are documented in numbered ROS Enhancement Proposals (REPs). Two of them are essential for working with coordinate frames. REP 103 defines units and axis orientation. All quantities use SI units: distances in metres, angles in radians, time in seconds, and linear and angular velocities in metres per second and radians per second. Coordinate frames are right-handed. For a frame attached to a robot body, the x axis points forward, the y axis points to the left and the z axis points up. Rotations follow the right-hand rule, so a positive rotation about the z axis, a positive yaw, turns the robot counter-clockwise when seen from above. The same rule explains why a positive angular.z in a Twist message makes Pipit turn left.

Cameras are an exception. Image processing traditionally uses a frame in which z points forward out of the lens, x to the right and y down. REP 103 therefore asks that such frames be named with the suffix _optical, as in camera_optical_frame, and that they be attached as children of a conventional body-oriented camera frame.

REP 105 defines the names and meanings of the frames that describe a mobile robot's position, which we discuss in the next section. Following both REPs is not merely a matter of style: Nav2, RViz and most community packages assume that your robot follows them, and a robot whose x axis points sideways will drive in the wrong direction as soon as you connect it to any of them.
""")

c(5, "Standard Frames", 75, """
REP 105 defines three frames that form the backbone of every mobile robot's transform tree: map, odom and base_link, connected in that order, with map as the parent of odom and odom as the parent of base_link.

The base_link frame is rigidly attached to the robot's body. For a differential-drive robot it is conventionally placed at the centre of the wheel axis, so that the robot turns around its origin. Many robots also define base_footprint, the projection of base_link onto the ground; on Pipit it is a child of base_link, as we describe later in this chapter.

The odom frame is a world-fixed frame in which the robot's position is computed from odometry, that is, from wheel encoders and similar sensors. The position of base_link in odom changes smoothly and continuously, without jumps, which makes it ideal for local tasks such as following a path over the next few metres. However, odometry accumulates errors, so over time the position in odom drifts away from the truth without bound.

The map frame is also world-fixed, but the robot's position in it is corrected by a localization system using sensors such as the laser scanner and a map. The position in map does not drift, but it can jump discontinuously whenever the localization corrects itself. The localization system does not publish the transform from map to base_link directly, since base_link already has odom as its parent; instead it publishes the transform from map to odom, which absorbs the accumulated drift. On Pipit, pipit_base publishes odom to base_link, and in Chapter 6 a localization node publishes map to odom.
""")

c(5, "Representing Transforms", 76, """
A transform between two frames consists of a translation and a rotation. The translation is a vector with x, y and z components in metres. The rotation is stored as a quaternion with four components, x, y, z and w, rather than as three angles, because quaternions have no singularities and can be combined and interpolated reliably. The quaternion (0, 0, 0, 1), with w equal to 1, is the identity and means no rotation at all. A common mistake is to initialise a quaternion with all four components set to zero, which is not a valid rotation; tf2 rejects such transforms.

For a ground robot, the only rotation that usually matters is yaw, the rotation about the z axis. A yaw of θ corresponds to the quaternion (0, 0, sin(θ/2), cos(θ/2)), so a yaw of 90 degrees, or π/2 radians, is (0, 0, 0.7071, 0.7071). For general conversions between roll, pitch and yaw angles and quaternions, the function quaternion_from_euler from the tf_transformations package is convenient in Python.

Transforms are exchanged as messages of type geometry_msgs/msg/TransformStamped. The header's frame_id names the parent frame, the field child_frame_id names the child frame, and the field transform holds the translation and rotation. The header's stamp gives the time at which the transform was valid. Transforms that change over time are published on the /tf topic. Transforms that never change, such as the position of a sensor bolted to the robot, are published on /tf_static, which uses transient_local durability so that nodes started later still receive them. Because of this, a static transform only needs to be published once.
""")

c(5, "Static Transforms", 78, """
The simplest way to publish a static transform is the static_transform_publisher program from the tf2_ros package. Pipit's laser scanner is mounted 0.12 m in front of and 0.18 m above the origin of base_link, and faces forward, so its transform is published with:

`ros2 run tf2_ros static_transform_publisher --x 0.12 --y 0.0 --z 0.18 --yaw 0 --pitch 0 --roll 0 --frame-id base_link --child-frame-id laser_link`

Angles are given in radians. Options that are left out default to zero, so the command could be shortened to --x 0.12 --z 0.18 together with the two frame names. Instead of --roll, --pitch and --yaw you can give the rotation directly as a quaternion with --qx, --qy, --qz and --qw. Older tutorials pass the values as a list of positional arguments without option names; this form is deprecated and prints a warning in Jazzy, and we do not use it.

The program publishes the transform once on /tf_static and then keeps running so that late subscribers can still receive it; if you stop it, nodes started afterwards will no longer find the transform. Static transforms can also be published from inside a node with the StaticTransformBroadcaster class, which is useful when the values come from parameters.

For a complete robot, however, publishing every fixed transform by hand quickly becomes unmanageable. The better solution is to describe the whole robot in a single file from which all fixed transforms are derived automatically, which is the subject of the second half of this chapter. On Pipit, the laser transform shown above is in fact published by robot_state_publisher from the robot description; the command is useful mainly for quick experiments.
""")

c(5, "Broadcasting Transforms", 79, """
Transforms that change over time are published from inside a node with a TransformBroadcaster. The following lines, taken from a node that publishes the pose of a moving frame, show the essential steps:

`from tf2_ros import TransformBroadcaster`
`self.tf_broadcaster = TransformBroadcaster(self)`
`t = TransformStamped()`
`t.header.stamp = self.get_clock().now().to_msg()`
`t.header.frame_id = 'odom'`
`t.child_frame_id = 'base_link'`
`t.transform.translation.x = self.x`
`t.transform.translation.y = self.y`
`t.transform.rotation.z = math.sin(self.theta / 2.0)`
`t.transform.rotation.w = math.cos(self.theta / 2.0)`
`self.tf_broadcaster.sendTransform(t)`

Note that the timestamp is taken from the node's clock with self.get_clock().now() and not from the Python time module. Only the node's clock respects the use_sim_time parameter described in Chapter 4; a transform stamped with system time in a simulated system will appear to lie decades in the future.

A dynamic transform must be published regularly, because tf2 can only answer queries for times that lie between transforms it has received. Publishing at the same rate as the data it describes is a good rule: pipit_base sends the odom to base_link transform with every odometry message, that is, at 50 Hz. Publishing much more slowly leads to the extrapolation errors discussed below, and there is no benefit in publishing much faster than the underlying measurement is updated.
""")

c(5, "Listening for Transforms", 80, """
To use transforms, a node creates a buffer, which stores the transforms received over a recent period, and a transform listener, which subscribes to /tf and /tf_static and fills the buffer:

`from tf2_ros.buffer import Buffer`
`from tf2_ros.transform_listener import TransformListener`
`self.tf_buffer = Buffer()`
`self.tf_listener = TransformListener(self.tf_buffer, self)`

By default the buffer keeps transforms for 10 seconds; a different duration can be passed as cache_time when the buffer is created. Create the buffer and listener once, in the constructor, and keep them for the lifetime of the node. A listener that is created immediately before each query has had no time to receive any transforms, so the query fails.

A transform is looked up with lookup_transform, which takes the target frame, the source frame and a time:

`t = self.tf_buffer.lookup_transform('base_link', 'laser_link', rclpy.time.Time())`

The order of the frames is a frequent source of confusion. The result transforms data expressed in the source frame, here laser_link, into the target frame, here base_link. For Pipit, the translation of the result is therefore (0.12, 0.0, 0.18), the position of the laser in base_link coordinates. Passing rclpy.time.Time(), which represents time zero, is a special request for the latest transform available in the buffer, whatever its exact time. An optional timeout argument, such as timeout=Duration(seconds=1.0), makes the call wait up to that long for the transform to become available instead of failing at once. If the transform cannot be found, lookup_transform raises one of three
""")

c(5, "Time and Extrapolation", 81, """
exceptions. A LookupException means that one of the frames is not known at all, usually because of a misspelt name or because nothing publishes it. A ConnectivityException means that both frames exist but are not connected in one tree. An ExtrapolationException means that the frames are connected, but the buffer holds no data for the requested time.

Extrapolation errors are the most common of the three and deserve a closer look. tf2 never guesses: for a requested time it interpolates between the two received transforms on either side, linearly for the translation and by spherical interpolation for the rotation, but it refuses to extrapolate beyond the newest or before the oldest transform in the buffer. Asking for the transform at the timestamp of a laser scan that has just arrived therefore often fails, because the odometry transform for that instant has not been received yet; the error message then mentions extrapolation into the future. Asking for a time more than 10 seconds ago fails for the opposite reason.

There are three remedies. If approximate results are acceptable, ask for the latest transform with rclpy.time.Time(). If the transform must match the data exactly, pass a timeout so that the lookup waits briefly for the transform to arrive, or check first with can_transform, which returns True or False instead of raising an exception. Finally, make sure that all nodes use the same clock; a mismatch between simulated and system time produces extrapolation errors that no timeout can cure.

Static transforms are treated specially: they are valid at all times, so they never cause extrapolation errors.
""")

c(5, "Debugging Transforms", 83, """
Two command-line tools answer most questions about a transform tree. The first, tf2_echo, prints the transform between two frames continuously:

`ros2 run tf2_ros tf2_echo base_link laser_link`

Its arguments are given in the same order as for lookup_transform: the first frame is the target and the second the source. For each transform it prints the time, the translation, and the rotation both as a quaternion and as roll, pitch and yaw in radians and degrees, together with the full transformation matrix. By default it prints once per second; an optional third argument sets a different rate in Hz.

The second tool, view_frames, draws the whole tree:

`ros2 run tf2_tools view_frames`

It listens to all transforms for 5 seconds and then writes a PDF file named frames followed by the date and time, for example frames_2024-09-12_14.03.27.pdf, into the current directory. The diagram shows every frame as a box and every transform as an arrow from parent to child, labelled with the name of the node that broadcasts it, the average publishing rate and the age of the most recent transform. It is the quickest way to discover a broken or doubly published link in the tree.

In RViz, the TF display draws every frame as a small set of coloured axes, red for x, green for y and blue for z, so that you can check visually that each frame is where you expect it. If a frame is missing from the display, the drop-down list of frames in the display's options shows which frames RViz has actually received.
""")

c(5, "The Unified Robot Description Format", 84, """
The geometry of a robot is described in the Unified Robot Description Format (URDF), an XML format in which a robot is a tree of links connected by joints. The root element is robot, with a name attribute. A link element describes one rigid body and may contain three optional parts: visual, the shape drawn by visualisation tools; collision, a usually simpler shape used for collision checking; and inertial, the mass and inertia used by physics engines. Shapes are boxes, cylinders, spheres or meshes loaded from files.

A joint element connects exactly two links, a parent and a child, and has a type. Six types are defined. A revolute joint rotates about an axis within an upper and a lower limit, like the elbow of an arm. A continuous joint rotates about an axis without limits, which makes it the right type for a wheel. A prismatic joint slides along an axis within limits. A fixed joint allows no motion at all and is used for sensors and other rigidly mounted parts. A floating joint allows motion in all six degrees of freedom, and a planar joint allows motion within a plane.

Each joint has an origin element whose xyz and rpy attributes give the position and orientation of the child link relative to the parent link, in metres and radians, when the joint is at zero. Movable joints also have an axis element, a unit vector in the child's frame; for a revolute or prismatic joint, a limit element with lower, upper, effort and velocity attributes is required. Because every link except the root is the child of exactly one joint, a URDF description maps directly onto a transform tree: each link becomes a frame.
""")

c(5, "Pipit's Description", 86, """
Pipit's URDF, in the pipit_description package, contains seven links. The root is base_link, placed at the centre of the wheel axis, 0.035 m above the ground, equal to the wheel radius. The link base_footprint is attached to it by a fixed joint with origin xyz="0 0 -0.035", so base_footprint lies on the ground directly beneath base_link. The chassis is modelled as a box 0.28 m long, 0.24 m wide and 0.08 m high, with a mass of 2.6 kg.

The two wheels are the links left_wheel_link and right_wheel_link. They are attached to base_link by continuous joints named left_wheel_joint and right_wheel_joint, with origins at y = 0.15 and y = -0.15 respectively, half the wheel separation on either side, and with axis xyz="0 1 0", so that each wheel rotates about the y axis of base_link. Each wheel is modelled as a cylinder of radius 0.035 m and length 0.025 m. The passive rear caster, caster_link, is attached by a fixed joint at x = -0.11; it is modelled as a sphere, since its rotation is of no interest to the software.

The sensors are attached by fixed joints. laser_link is placed at xyz="0.12 0 0.18", the same values we used with static_transform_publisher, and imu_link at xyz="0 0 0.05", both without any rotation. Because the sensor links are children of base_link, every measurement they produce can be transformed into base_link, odom and map as soon as the rest of the tree is available.
""")

c(5, "Xacro", 87, """
Written by hand, a URDF file quickly becomes long and repetitive; Pipit's two wheels, for example, differ only in their name and the sign of one coordinate. Xacro, short for XML Macros, is a preprocessor that adds variables, arithmetic, macros and file inclusion to XML. Files that use it conventionally have the double extension .urdf.xacro, as in pipit.urdf.xacro.

Properties are declared with `<xacro:property name="wheel_radius" value="0.035"/>` and used with ${wheel_radius}. Expressions inside ${} may contain arithmetic, so the wheel joint origin can be written as ${wheel_separation/2}. A macro defined with xacro:macro takes parameters and expands to any XML, which lets Pipit's description define a single wheel macro and instantiate it twice with the parameters prefix="left" reflect="1" and prefix="right" reflect="-1". xacro:include pulls in other files, so that sensors can be described in separate files and reused on other robots.

The xacro program expands a file into plain URDF:

`xacro pipit.urdf.xacro > pipit.urdf`

It is good practice to check the result with check_urdf from the liburdfdom-tools package, which parses the file, reports errors and prints the tree of links. In launch files the expansion is done on the fly with the Command substitution described in Chapter 4, so the generated URDF never needs to be stored. Keep the same numbers in one place: Pipit's wheel radius and wheel separation appear both in the description and in the parameters of pipit_base, and if they disagree, the robot drawn in RViz will not move in the same way as the real one.
""")

c(5, "robot_state_publisher", 88, """
The node robot_state_publisher turns a URDF description into transforms. It reads the description from its robot_description parameter, which must contain the full URDF text, not the name of a file. For each fixed joint it publishes a transform once on /tf_static. For each movable joint it subscribes to /joint_states, where messages of type sensor_msgs/msg/JointState give the current position of each joint by name, and publishes the resulting transforms on /tf. The parameter publish_frequency limits how often these dynamic transforms are published; its default is 20.0 Hz. The node also republishes the description on the /robot_description topic with transient_local durability, so that tools such as RViz can draw the robot model.

robot_state_publisher computes transforms only from joint positions; it does not know where the joint values come from. On the real Pipit, pipit_base publishes the positions of left_wheel_joint and right_wheel_joint, computed from the encoders, on /joint_states at the same 50 Hz as odometry. Without such a publisher, the wheel links have no transforms, and RViz shows them as missing. For a robot without hardware, the joint_state_publisher node publishes a position of zero for every movable joint, and joint_state_publisher_gui opens a window with a slider for each joint, which is a convenient way to check that the axes and limits in a new description are correct.

Note that robot_state_publisher publishes only transforms within the robot. It does not publish odom to base_link or any other transform that relates the robot to the world.
""")

c(5, "Odometry and the odom Frame", 89, """
We can now follow the complete path from Pipit's wheel encoders to the odom frame. pipit_base reads the encoder counts of both wheels fifty times per second. With 1440 ticks per revolution and a wheel radius of 0.035 m, one tick corresponds to a distance of 2π × 0.035 / 1440, or about 0.000153 m, so the distance travelled by each wheel since the last reading is simply the change in its count multiplied by this value.

From the two wheel distances d_l and d_r, the differential-drive equations give the motion of the robot: the forward distance is d = (d_r + d_l) / 2 and the change of heading is Δθ = (d_r − d_l) / L, where L is the wheel separation of 0.30 m. Dividing by the time since the last reading gives the linear velocity v and the angular velocity ω. If the right wheel turns faster than the left, Δθ is positive and the robot turns left, counter-clockwise, in agreement with REP 103.

pipit_base integrates these increments into a position x, y and heading θ in the odom frame, and publishes the result in two forms at 50 Hz: as a nav_msgs/msg/Odometry message on /odom, whose header.frame_id is odom and whose child_frame_id is base_link, and, if publish_tf is true, as the odom to base_link transform on /tf. The Odometry message also contains the velocities and covariance matrices expressing the uncertainty of the estimate.

Wheel odometry is accurate over short distances but drifts steadily, especially when wheels slip on smooth floors or during fast turns. In our laboratory a Pipit driving a 10 m square typically returns with an error of 0.2 to 0.4 m. Correcting this drift is the job of localization, which is where Chapter 6 begins.
""")

# ---------------------------------------------------------------- Chapter 6
c(6, "Overview of Nav2", 93, """
Nav2, the navigation stack of ROS 2, moves a mobile robot safely from its current position to a goal. It is the successor of the ROS 1 navigation stack and is built from a set of cooperating servers, each responsible for one part of the problem. The planner_server computes a path from the robot's position to the goal. The controller_server follows that path by computing velocity commands many times per second. The smoother_server can smooth a path before it is followed, and the behavior_server provides recovery behaviours that are tried when the robot gets stuck. The bt_navigator coordinates all of them, and the waypoint_follower drives through a list of goals in turn. The velocity_smoother limits the acceleration of the commands before they are sent to the robot on /cmd_vel. For localization on an existing map, Nav2 uses the map_server and amcl nodes, and a lifecycle_manager starts and stops everything in the correct order.

Nav2 supports several kinds of mobile base. This chapter concentrates on differential-drive robots such as Pipit, whose motion can be described by a forward velocity and a turning rate. Everything in this chapter has been tested on Pipit in our laboratory and on the simulated robot from pipit_sim.

Before starting, Nav2 requires three things from the robot: a transform tree that follows REP 105, with odom to base_link published by the odometry source; a laser scan or other obstacle source; and a base that accepts geometry_msgs/msg/Twist messages on /cmd_vel. Pipit satisfies all three. Nav2 is installed on Jazzy with `sudo apt install ros-jazzy-navigation2 ros-jazzy-nav2-bringup`.
""")

c(6, "Lifecycle Nodes", 94, """
Most Nav2 servers are lifecycle nodes, also called managed nodes. An ordinary node starts working as soon as it is created; a lifecycle node instead passes through a defined set of states, so that a whole system can be configured and started in a controlled order. There are four primary states. A new lifecycle node is Unconfigured. The configure transition loads its parameters and creates its publishers and subscriptions, bringing it to Inactive. The activate transition brings it to Active, the only state in which it processes data. The deactivate and cleanup transitions return it to Inactive and Unconfigured respectively, and the shutdown transition, possible from any of these states, leads to Finalized, from which there is no return.

States can be inspected and changed by hand with `ros2 lifecycle get /map_server` and, for example, `ros2 lifecycle set /map_server configure`, and `ros2 lifecycle nodes` lists all lifecycle nodes in the graph. In practice, Nav2 does this for you. The lifecycle_manager node takes a list of node names in its node_names parameter and, if its autostart parameter is true, configures and activates them one after another in the order given. It then keeps a connection, called a bond, with each node. If a node stops responding for longer than bond_timeout, which defaults to 4.0 seconds, the manager assumes that it has crashed and brings down all the nodes it manages, so that the robot does not continue to move with part of its navigation system missing.
""")

c(6, "Mapping with SLAM", 96, """
Navigation on a map first requires a map. The standard way to create one is Simultaneous Localization and Mapping (SLAM): the robot is driven around the environment while an algorithm builds a map from the laser scans and, at the same time, estimates where the robot is within that partial map. The package used with Nav2, and in this book, is slam_toolbox, developed by Steve Macenski. It is installed with `sudo apt install ros-jazzy-slam-toolbox` and started with:

`ros2 launch slam_toolbox online_async_launch.py use_sim_time:=false`

slam_toolbox can run in synchronous or asynchronous mode. In synchronous mode it processes every scan, even if it falls behind the robot. In asynchronous mode, which the launch file above uses and which we recommend for Pipit's Raspberry Pi, it always processes the most recent scan and skips scans that arrive while it is still busy, so it never falls behind but may build a slightly less detailed map.

While mapping, slam_toolbox publishes the map on /map and the transform from map to odom, so RViz can show the map growing as you drive. Drive slowly and smoothly, keeping Pipit below 0.2 m/s and avoiding fast turns, because the quality of the map depends on consecutive scans overlapping well. When the robot returns to a place it has seen before, slam_toolbox recognises it and corrects the accumulated error in the whole map; this step is called loop closure. A good mapping drive therefore ends where it began.
""")

c(6, "Saving Maps", 97, """
When the map looks complete, save it with the map saver from the nav2_map_server package while SLAM is still running:

`ros2 run nav2_map_server map_saver_cli -f ~/maps/lab_map`

The -f option gives the file name without an extension. The command writes two files: lab_map.pgm, a greyscale image of the map, and lab_map.yaml, which describes how to interpret the image. The YAML file for Pipit's laboratory looks like this:

`image: lab_map.pgm`
`mode: trinary`
`resolution: 0.05`
`origin: [-4.2, -3.5, 0.0]`
`negate: 0`
`occupied_thresh: 0.65`
`free_thresh: 0.25`

The resolution is the size of one pixel in metres, so each pixel covers a square of 5 cm by 5 cm. The origin gives the position of the lower-left pixel in the map frame as x, y and yaw. In trinary mode each pixel is classified in one of three ways from its brightness, which is interpreted as a probability of occupancy: pixels whose probability is above occupied_thresh, 0.65, are occupied, pixels below free_thresh, 0.25, are free, and all others are unknown. In the published map, occupied cells have the value 100, free cells 0 and unknown cells -1.

The map_server node loads such a file and publishes it on /map as a nav_msgs/msg/OccupancyGrid message. Since the map is published once and needed by nodes that start later, the topic uses transient_local durability.
""")

c(6, "Localization with AMCL", 99, """
To navigate on a saved map, the robot must know where it is on that map. Nav2 uses Adaptive Monte Carlo Localization (AMCL), implemented by the amcl node. AMCL is a particle filter: it represents its belief about the robot's pose by a set of particles, each a possible pose, moves all particles according to the odometry, and weights them by how well the laser scan, seen from each particle, matches the map. The particle set adapts in size, shrinking when the estimate is confident and growing when it is uncertain, between min_particles, 500 by default, and max_particles, 2000 by default. Only laser_max_beams, 60 by default, of each scan's beams are used, which saves computing time on Pipit's 360-beam scans.

To save effort, the filter updates only after the robot has moved at least update_min_d, 0.25 m, or turned at least update_min_a, 0.2 rad. The parameter robot_model_type selects the motion model: nav2_amcl::DifferentialMotionModel for differential-drive robots like Pipit, and nav2_amcl::OmniMotionModel for holonomic robots that can move sideways. amcl publishes the transform from map to odom.

AMCL must be given an initial estimate of the robot's pose. In RViz, use the 2D Pose Estimate tool: click on the robot's position in the map and drag in the direction it faces. RViz publishes the estimate on /initialpose as a geometry_msgs/msg/PoseWithCovarianceStamped message. Alternatively, set the amcl parameter set_initial_pose to true and give the pose in the initial_pose parameters, which is convenient when the robot always starts at its dock. Until an initial pose is received, amcl publishes no transform, and Nav2 cannot start.
""")

c(6, "Costmaps", 100, """
Planners and controllers do not work on the map directly but on costmaps: two-dimensional grids in which each cell holds a cost between 0 and 255. A cost of 0 means free space. A cost of 254, called lethal, marks a cell that contains an obstacle, and 253, called inscribed, marks a cell so close to an obstacle that the robot's centre cannot be there without a collision. The value 255 means that nothing is known about the cell. Costs between 1 and 252 express a decreasing preference for staying away from obstacles.

Nav2 maintains two costmaps. The global costmap covers the whole map and is used by the planner to find a path. The local costmap covers only a small area around the robot, which moves with the robot, and is used by the controller to avoid obstacles while following the path.

Each costmap is built from layers, which are combined in the order listed in the plugins parameter. The static_layer copies obstacles from the map published on /map. The obstacle_layer adds obstacles seen by sensors, in our case the laser scan on /scan. It marks the cell where each beam ends as an obstacle and clears the cells along the beam, a process called raytracing, so that obstacles which move away disappear from the costmap. The inflation_layer, which must come last, spreads costs outwards around every obstacle so that paths keep a safe distance from walls. A voxel_layer, which tracks obstacles in three dimensions for depth cameras and three-dimensional lidars, can take the place of the obstacle_layer, but Pipit with its planar laser does not need it.
""")

c(6, "Costmap Parameters", 101, """
For Pipit we use the following costmap configuration, in the pipit_navigation package's config/nav2_params.yaml. The local costmap has rolling_window set to true, so that it moves with the robot, a width and height of 3 m, a resolution of 0.05 m, an update_frequency of 5.0 Hz and a publish_frequency of 2.0 Hz. Its plugins are the obstacle_layer and the inflation_layer. The global costmap uses the static_layer, obstacle_layer and inflation_layer, with an update_frequency of 1.0 Hz and a publish_frequency of 1.0 Hz; its size is taken from the map.

Both costmaps need to know the size of the robot. A roughly round robot can be described by robot_radius; for Pipit we use 0.19 m, enough to enclose the chassis and the wheels. A robot with a clearly non-circular shape should instead be given a footprint polygon. In the obstacle_layer, obstacle_max_range, 2.5 m, limits how far away a laser reading may be to be marked as an obstacle, and raytrace_max_range, 3.0 m, limits how far along a beam cells are cleared.

The inflation_layer has two important parameters. inflation_radius, 0.55 m, is the distance from an obstacle over which costs are spread. cost_scaling_factor, 3.0, controls how quickly the cost falls with distance beyond the inscribed radius: a larger factor makes the cost fall off faster, so the robot is willing to pass closer to obstacles. If Pipit refuses to drive through a doorway that is clearly wide enough, reducing inflation_radius or increasing cost_scaling_factor usually helps.
""")

c(6, "The Planner Server", 103, """
The planner_server computes a path on the global costmap from the robot's current pose to the goal, and publishes it as a nav_msgs/msg/Path message on /plan. The algorithm is provided by a plugin. The default is NavFn, implemented by nav2_navfn_planner::NavfnPlanner, a wavefront planner that uses Dijkstra's algorithm unless its use_astar parameter is set to true, in which case it uses A*. Its tolerance parameter, 0.5 m, allows the planner to plan to the nearest reachable point when the goal itself lies in an obstacle.

NavFn treats the robot as a point that can move in any direction, which suits round differential-drive robots such as Pipit well. The Smac Planner family offers alternatives for other cases: a 2D variant that is similar to NavFn but faster on large maps, a Hybrid-A* variant that respects a minimum turning radius, and a State Lattice variant for robots whose motion is constrained in more complex ways. Theta Star produces paths with fewer turns by allowing straight segments in any direction rather than only along grid cells.

The parameter expected_planner_frequency, 20.0 Hz, sets how often the planner is expected to be able to run; if planning takes longer than this allows, the server prints a warning. How often a new path is actually requested is decided by the bt_navigator, as described later in this chapter, not by the planner server. For Pipit we keep NavFn with its default settings: in an office-sized environment it finds paths in a few milliseconds.
""")

c(6, "The Controller Server", 104, """
The controller_server follows the current path by computing a velocity command many times per second, taking into account the local costmap, the robot's current velocity and its limits. The rate is set by controller_frequency, 20.0 Hz. As with planning, the algorithm is a plugin. The default is DWB, implemented by dwb_core::DWBLocalPlanner, which samples many possible velocity commands, simulates each one for a short time, scores the resulting trajectories with a set of critics and sends the best. Two other controllers are widely used. Regulated Pure Pursuit (RPP), implemented by nav2_regulated_pure_pursuit_controller::RegulatedPurePursuitController, steers towards a point a fixed distance ahead on the path and slows down in tight spaces and sharp turns. Model Predictive Path Integral (MPPI), implemented by nav2_mppi_controller::MPPIController, optimises a sequence of future commands by sampling thousands of random trajectories and is the most capable of the three, at the price of a higher computing load.

The controller server also decides when the robot has arrived and when it is stuck. The goal checker, nav2_controller::SimpleGoalChecker, considers the goal reached when the robot is within xy_goal_tolerance, 0.25 m, of the goal position and within yaw_goal_tolerance, 0.25 rad, of the goal orientation. The progress checker, nav2_controller::SimpleProgressChecker, reports failure if the robot has not moved at least required_movement_radius, 0.5 m, within movement_time_allowance, 10.0 s; this failure triggers the recovery behaviours described later in this chapter.
""")

c(6, "Tuning the Controller for Pipit", 105, """
On Pipit's Raspberry Pi, MPPI uses more processor time than we can spare alongside AMCL and the costmaps, so we configure the controller_server with RPP instead of the default. Its most important parameter is desired_linear_vel, the speed at which the robot follows the path on straight sections; for Pipit we use 0.4 m/s, somewhat below the hardware limit of 0.5 m/s, so that the controller has headroom to correct the robot's course. The lookahead distance determines how far ahead on the path the controller aims. We set lookahead_dist to 0.6 m, with min_lookahead_dist 0.3 m and max_lookahead_dist 0.9 m, between which the lookahead is scaled with the current speed. A shorter lookahead follows the path more closely but tends to oscillate; a longer one gives smoother motion but cuts corners.

If you prefer to stay with DWB, set its max_vel_x to 0.5 and max_vel_theta to 2.0, matching the limits of pipit_base. Larger values gain nothing, since the base clips faster commands anyway, and they mislead the controller's predictions of where the robot will be.

The velocity_smoother sits between the controller and the robot: the controller_server publishes its commands on cmd_vel_nav, and the smoother republishes them on /cmd_vel, to which pipit_base subscribes. It runs at a smoothing_frequency of 20.0 Hz and limits velocities to max_velocity, [0.5, 0.0, 2.0] for Pipit, and accelerations to max_accel, [1.0, 0.0, 3.2]. The three values refer to forward, sideways and rotational motion; the sideways values are zero because a differential-drive robot cannot move sideways.
""")

c(6, "Behavior Trees", 107, """
The bt_navigator decides what the other servers do, and in which order, by executing a Behavior Tree (BT). A BT is a tree of nodes that is evaluated, or ticked, from the root many times per second. Leaf nodes perform actions, such as computing a path or following it, or check conditions, such as whether the goal has been reached; each returns SUCCESS, FAILURE or RUNNING. Inner nodes combine their children: a Sequence ticks its children in order and fails as soon as one fails, a Fallback tries its children in order until one succeeds, and Nav2 adds special nodes such as PipelineSequence and RecoveryNode. Nav2 executes BTs with the BehaviorTree.CPP library, and trees are written in XML, so the navigation logic can be changed without recompiling anything. The Groot application displays and edits these XML files graphically.

When it receives a goal, the bt_navigator by default runs the tree navigate_to_pose_w_replanning_and_recovery.xml. This tree recomputes the path at a rate of 1 Hz, using a RateController node with hz="1.0", so that the robot reacts to new obstacles while the controller keeps following the most recent path. The whole navigation subtree is wrapped in a RecoveryNode with number_of_retries set to 6: if navigation fails, the recovery behaviours are run and navigation is attempted again, up to six times, before the goal is reported as failed. A custom tree can be selected for all goals with the bt_navigator parameter default_nav_to_pose_bt_xml, or for a single goal through the behavior_tree field of the goal.
""")

c(6, "Recovery Behaviors", 108, """
The behavior_server provides the recovery behaviours that the BT calls when the robot is stuck. Its standard plugins are spin, which rotates the robot on the spot; backup, which drives it backwards in a straight line; drive_on_heading, which drives it forward along its current heading; wait, which simply pauses; and assisted_teleop, which lets a human drive the robot while Nav2 prevents collisions. The server runs these behaviours at a cycle_frequency of 10.0 Hz and checks each command against the local costmap, so that a recovery behaviour never drives into an obstacle.

In the default tree, a failure first clears the costmaps around the robot, since the most common reason for being stuck is an obstacle that is no longer there but is still marked in a costmap. If that does not help, the tree runs a round of recovery behaviours in turn: a spin of 1.57 radians, a quarter turn, which lets the laser see the surroundings from a new angle; a wait of 5 seconds, in case the obstacle is a person who will move away; and a backup of 0.30 m at 0.05 m/s. After each round, navigation is attempted again.

Spinning in place is therefore normal behaviour when the path is blocked and does not indicate a fault. If Pipit spins repeatedly in an open area, however, the most likely cause is a localization problem: when AMCL's estimate is wrong, the laser sees obstacles where the map shows none, and the costmaps fill with phantom obstacles. Check the estimated pose in RViz and give a new initial pose if it is wrong.
""")

c(6, "Sending Navigation Goals", 110, """
The simplest way to send a goal is the Nav2 Goal tool in RViz: click on the destination in the map and drag in the direction the robot should face when it arrives. Behind the scenes, RViz sends a goal to the /navigate_to_pose action, of type nav2_msgs/action/NavigateToPose, which the bt_navigator serves. The goal contains pose, a geometry_msgs/msg/PoseStamped with the target, and behavior_tree, the name of a tree file, which may be left empty to use the default. While the robot drives, the feedback reports current_pose, navigation_time, estimated_time_remaining, number_of_recoveries and distance_remaining.

Because it is an ordinary action, a goal can also be sent from the command line, as in Chapter 3:

`ros2 action send_goal /navigate_to_pose nav2_msgs/action/NavigateToPose "{pose: {header: {frame_id: map}, pose: {position: {x: 2.0, y: 1.0}, orientation: {w: 1.0}}}}" -f`

The goal pose must be given in the map frame; a goal whose frame_id is left empty is rejected. Note the orientation: a quaternion with w equal to 1.0 means that the robot should finish facing along the x axis of the map, and omitting it leaves all four components at zero, which, as Chapter 5 explained, is not a valid rotation.

To visit several places in turn, use the /follow_waypoints action of type nav2_msgs/action/FollowWaypoints, served by the waypoint_follower, whose goal contains a list of poses. By default the robot stops at each waypoint only long enough to register that it has arrived; the result lists the indices of any waypoints that could not be reached.
""")

c(6, "The Simple Commander API", 111, """
For scripts that send many goals, the nav2_simple_commander package offers a Python interface that hides the details of the actions. Its central class, BasicNavigator, is itself a node:

`from nav2_simple_commander.robot_navigator import BasicNavigator, TaskResult`
`nav = BasicNavigator()`
`nav.setInitialPose(initial_pose)`
`nav.waitUntilNav2Active()`
`nav.goToPose(goal_pose)`
`while not nav.isTaskComplete():`
`    feedback = nav.getFeedback()`
`result = nav.getResult()`

setInitialPose publishes an initial pose for AMCL, exactly as the 2D Pose Estimate tool in RViz does. waitUntilNav2Active blocks until amcl and the navigation servers have become active; calling goToPose before that point makes the goal fail. goToPose sends a single goal and returns immediately, isTaskComplete returns True once the task has finished, and getFeedback returns the latest feedback message, for example to print the distance_remaining field. followWaypoints takes a list of poses and uses the /follow_waypoints action instead. When the task is complete, getResult returns one of three values: TaskResult.SUCCEEDED, TaskResult.CANCELED or TaskResult.FAILED. cancelTask cancels the current task, for example when a script decides that the robot has taken too long.

All poses passed to these methods are geometry_msgs/msg/PoseStamped messages in the map frame. A typical use in our laboratory is a patrol script that sends Pipit to four waypoints in a loop and, when the battery falls below 30 percent according to /battery_state, sends it to its charger with the docking action from Chapter 3.
""")

c(6, "Bringing Up Nav2 on Pipit", 113, """
With all the pieces in place, the complete navigation system is started from the nav2_bringup package, giving it the map and the parameter file:

`ros2 launch nav2_bringup bringup_launch.py map:=/home/pipit/maps/lab_map.yaml params_file:=/home/pipit/ros2_ws/src/pipit_navigation/config/nav2_params.yaml use_sim_time:=false`

This starts map_server, amcl and all the navigation servers, each managed by a lifecycle_manager. Before sending the first goal, work through a short checklist. The transform tree should contain map, odom, base_link and laser_link, connected in that order; view_frames shows this at a glance. /scan should arrive at about 10 Hz and /odom at about 50 Hz, which ros2 topic hz confirms. The laser scan drawn in RViz should line up with the walls of the map after the initial pose has been set.

Two problems account for most failed first attempts. If Nav2 warns that transforms are too old, or that a transform timed out, the Raspberry Pi is probably too busy to keep up; increase the costmaps' transform_tolerance from its default of 0.1 s to 0.3 s. If the robot plans paths but never moves, check with `ros2 topic info /cmd_vel --verbose` that the velocity_smoother publishes on /cmd_vel and that pipit_base subscribes to it, and add a remapping if the names differ.

This completes our tour from a single node to a robot that navigates its environment on its own. The same building blocks, topics, services, actions, parameters, launch files and transforms, underlie every ROS 2 system, however large.
""")
