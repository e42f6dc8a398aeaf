# -*- coding: utf-8 -*-
"""Question source for the textbook set. build.py assigns ids, splits and writes questions.jsonl.

Each entry: dict(kind, question, facts, wrong_facts, source, history, covers_instead).
source is a chunk id (chapter-XX-chunk-YYY) or None.
"""

Q = []


def q(kind, question, facts, wrong=(), source=None, history=(), covers=""):
    Q.append(dict(kind=kind, question=question, facts=list(facts), wrong_facts=list(wrong),
                  source=source, history=list(history), covers_instead=covers))


# ------------------------------------------------------------------ answerable
A = "answerable"
q(A, "What is the default value of ROS_DOMAIN_ID if the environment variable is not set?",
  ["0", "zero"], ["17"], "chapter-01-chunk-007")
q(A, "Which RMW implementation is the default in Humble and Jazzy?",
  ["rmw_fastrtps_cpp", "Fast DDS"], ["rmw_cyclonedds_cpp", "Cyclone DDS", "rmw_connextdds"], "chapter-01-chunk-006")
q(A, "Until when is Humble Hawksbill supported?",
  ["May 2027", "2027"], ["May 2029", "2029", "November 2024"], "chapter-01-chunk-003")
q(A, "Which Ubuntu release does Jazzy Jalisco target?",
  ["Ubuntu 24.04", "24.04", "Noble Numbat", "Noble"], ["22.04", "Jammy"], "chapter-01-chunk-003")
q(A, "Which apt package does the book recommend for the on-board computer of a robot if you want ROS 2 Jazzy without graphical tools?",
  ["ros-jazzy-ros-base"], ["ros-jazzy-desktop"], "chapter-01-chunk-009")
q(A, "What build type does ros2 pkg create use when --build-type is not given?",
  ["ament_cmake"], ["ament_python"], "chapter-01-chunk-012")
q(A, "How many range samples per revolution does Pipit's LD-360 laser scanner produce?",
  ["360"], ["1440"], "chapter-01-chunk-014")
q(A, "At what rate does Pipit publish wheel odometry on /odom?",
  ["50 Hz", "50"], ["10 Hz", "100 Hz", "1 Hz"], "chapter-02-chunk-004")
q(A, "What is the default logging severity level of a ROS 2 node?",
  ["INFO"], ["DEBUG", "WARN"], "chapter-02-chunk-002")
q(A, "At what rate does ros2 topic pub publish by default?",
  ["1 Hz", "once per second", "once a second"], [], "chapter-02-chunk-007")
q(A, "Which option of ros2 topic echo replaces the contents of arrays with their length?",
  ["--no-arr"], ["--once", "--field"], "chapter-02-chunk-006")
q(A, "Which member_of_group entry must the package.xml of an interface package contain?",
  ["rosidl_interface_packages"], ["rosidl_default_generators", "rosidl_default_runtime"], "chapter-02-chunk-009")
q(A, "What queue depth does the parameters QoS profile use?",
  ["1000"], ["5"], "chapter-02-chunk-012")
q(A, "What fields does the response of std_srvs/srv/Trigger contain?",
  ["success", "bool success"], [], "chapter-03-chunk-002")
q(A, "Below what voltage does Pipit's battery monitor warn?",
  ["13.2 V", "13.2"], ["16.8 V", "16.8", "14.8 V", "14.8"], "chapter-03-chunk-003")
q(A, "How many parameter services does every ROS 2 node offer automatically?",
  ["six", "6"], [], "chapter-03-chunk-006")
q(A, "In rclpy, what happens to cancel requests if an action server is created without a cancel callback?",
  ["rejected", "reject"], [], "chapter-03-chunk-011")
q(A, "Which option makes ros2 action send_goal print the feedback messages?",
  ["--feedback", "-f"], [], "chapter-03-chunk-014")
q(A, "Which dock does Pipit's dock_server use when a goal leaves dock_id empty?",
  ["dock_a"], [], "chapter-03-chunk-015")
q(A, "How long does Pipit's docking server allow before it aborts a docking goal?",
  ["60 s", "60 seconds", "60"], ["0.5 s", "5 Hz"], "chapter-03-chunk-015")
q(A, "Which option of ros2 launch lists the arguments a launch file accepts without starting it?",
  ["--show-args"], [], "chapter-04-chunk-004")
q(A, "In an XML launch file, which attribute of the node element names the executable to run?",
  ["exec"], [], "chapter-04-chunk-007")
q(A, "Which key has to appear under the node name in a ROS 2 parameter YAML file?",
  ["ros__parameters"], [], "chapter-04-chunk-011")
q(A, "What is the default value of the use_sim_time parameter?",
  ["false"], ["true"], "chapter-04-chunk-014")
q(A, "How long does a tf2 Buffer keep transforms by default?",
  ["10 seconds", "10 s", "10"], ["5 seconds"], "chapter-05-chunk-007")
q(A, "On which topic are static transforms published?",
  ["/tf_static", "tf_static"], [], "chapter-05-chunk-004")
q(A, "What is the default publish_frequency of robot_state_publisher?",
  ["20.0 Hz", "20 Hz", "20"], ["50 Hz"], "chapter-05-chunk-013")
q(A, "What is the default max_particles value of amcl?",
  ["2000"], ["500"], "chapter-06-chunk-005")
q(A, "What inflation_radius does the book use for Pipit's costmaps?",
  ["0.55 m", "0.55"], ["0.19", "3.0"], "chapter-06-chunk-007")
q(A, "Which planner plugin does Nav2's planner_server use by default?",
  ["NavFn", "NavfnPlanner", "nav2_navfn_planner::NavfnPlanner"], ["Smac", "Theta Star"], "chapter-06-chunk-008")
q(A, "Above what occupancy probability is a pixel of Pipit's saved map classified as occupied?",
  ["0.65"], ["0.25"], "chapter-06-chunk-004")
q(A, "How far does the backup recovery behaviour in Nav2's default tree drive the robot backwards?",
  ["0.30 m", "0.30", "0.3 m", "30 cm"], ["1.57", "0.05 m/s"], "chapter-06-chunk-012")
q(A, "At what rate does the default Nav2 behavior tree recompute the path?",
  ["1 Hz", "1.0", "once per second"], ["20.0 Hz", "10.0 Hz"], "chapter-06-chunk-011")

# ------------------------------------------------------------------ paraphrase
P = "paraphrase"
q(P, "me and the guy at the next bench keep seeing each other's nodes in ros2 node list. how do we stop our robots from talking to each other??",
  ["ROS_DOMAIN_ID", "domain ID", "domain"], [], "chapter-01-chunk-007")
q(P, "i edit my python node but when i run it again it still does the old thing. do i seriously have to rebuild every single time?",
  ["--symlink-install", "symlink"], ["--packages-select"], "chapter-01-chunk-010")
q(P, "when i send a speed to the robot from the terminal it moves a tiny bit, stops, then moves again. is it broken?",
  ["--rate", "0.5 s", "cmd_vel_timeout"], [], "chapter-02-chunk-007")
q(P, "my laser subscriber gets literally nothing even though the scan topic shows up in the list. i just put 10 as the queue number. what am i missing",
  ["qos_profile_sensor_data", "sensor data", "best_effort"], [], "chapter-02-chunk-005")
q(P, "my node just freezes the first time i call a service from inside a timer. no error, nothing. why??",
  ["deadlock", "call_async", "add_done_callback", "MultiThreadedExecutor"], [], "chapter-03-chunk-007")
q(P, "how do i see where the laser sits compared to the middle of the robot, just with a terminal command?",
  ["tf2_echo"], [], "chapter-05-chunk-009")
q(P, "i keep getting some error about extrapolation into the future when i look up a transform for my scan. what do i do",
  ["rclpy.time.Time()", "Time()", "timeout", "can_transform"], [], "chapter-05-chunk-008")
q(P, "how close does the robot have to get before nav2 decides ok you've arrived?",
  ["0.25 m", "0.25", "xy_goal_tolerance"], ["0.5 m"], "chapter-06-chunk-009")
q(P, "nav2 starts but the robot has no clue where it is on the map. how do i tell it where it is?",
  ["2D Pose Estimate", "/initialpose", "set_initial_pose"], [], "chapter-06-chunk-005")
q(P, "i wrote a launch file but ros2 launch keeps saying it can't find it, even though it's right there in my launch folder??",
  ["install(DIRECTORY launch", "data_files", "share directory"], [], "chapter-04-chunk-003")
q(P, "i wrote max_linear_speed: 1 in my yaml and now the node won't even start, something about the wrong type. but 1 is a number??",
  ["1.0", "decimal point", "double"], [], "chapter-04-chunk-011")
q(P, "if i change a parameter with ros2 param set, will it still be like that after i restart the node?",
  ["ros2 param dump", "param dump", "only as long as the node runs"], [], "chapter-04-chunk-010")
q(P, "how far does pipit's wheel actually roll for one single encoder tick?",
  ["0.000153 m", "0.000153", "0.153 mm"], ["0.035"], "chapter-05-chunk-014")
q(P, "odom and map look like the exact same thing to me. why do we need both frames?",
  ["drift", "jump"], [], "chapter-05-chunk-003")
q(P, "when am i supposed to make something an action and not just a service? whats the rule",
  ["one second", "1 second", "cancel"], [], "chapter-03-chunk-001")
q(P, "my robot keeps spinning around on the spot when it gets stuck. is that a bug?",
  ["1.57", "quarter turn", "recovery"], [], "chapter-06-chunk-012")
q(P, "whats the fastest pipit can actually drive forward?",
  ["0.5 m/s", "0.5"], ["2.0 rad/s", "0.4 m/s"], "chapter-01-chunk-014")
q(P, "i want a node that starts late to still get the last message that was already sent, like with the map. what's that setting called",
  ["transient_local"], ["volatile"], "chapter-02-chunk-011")
q(P, "which way does the robot turn when yaw is positive? i always mix it up",
  ["counter-clockwise", "counterclockwise", "left"], [], "chapter-05-chunk-002")
q(P, "all my nodes are python so can't i just make my message package ament_python too?",
  ["ament_cmake"], ["ament_python"], "chapter-02-chunk-009")
q(P, "the map i saved is just a picture. how does nav2 know how big one pixel is in real life?",
  ["resolution", "0.05", "5 cm"], [], "chapter-06-chunk-004")

# ------------------------------------------------------------------ abbreviation
B = "abbreviation"
q(B, "What does DDS stand for?",
  ["Data Distribution Service"], [], "chapter-01-chunk-006")
q(B, "What does RMW stand for in ROS 2?",
  ["ROS Middleware interface", "ROS Middleware"], [], "chapter-01-chunk-005")
q(B, "What does LTS mean for a ROS 2 distribution, and how long are LTS releases supported?",
  ["Long-Term Support", "five years", "5 years"], ["eighteen months"], "chapter-01-chunk-003")
q(B, "What reliability setting does the sensor data Quality of Service profile use?",
  ["best_effort", "best effort"], ["reliable"], "chapter-02-chunk-012")
q(B, "How often does Pipit publish its inertial measurement unit data?",
  ["100 Hz", "100"], ["50 Hz", "10 Hz"], "chapter-02-chunk-004")
q(B, "What does AMCL stand for?",
  ["Adaptive Monte Carlo Localization", "Adaptive Monte Carlo Localisation"], [], "chapter-06-chunk-005")
q(B, "After simultaneous localization and mapping, which command does the book use to save the map to disk?",
  ["map_saver_cli", "ros2 run nav2_map_server map_saver_cli"], [], "chapter-06-chunk-004")
q(B, "What double file extension do Unified Robot Description Format files that use xacro conventionally have?",
  [".urdf.xacro", "urdf.xacro"], [], "chapter-05-chunk-012")
q(B, "For the Regulated Pure Pursuit controller, what lookahead_dist does the book use on Pipit?",
  ["0.6 m", "0.6"], ["0.3 m", "0.9 m"], "chapter-06-chunk-010")
q(B, "What does MPPI stand for in Nav2?",
  ["Model Predictive Path Integral"], [], "chapter-06-chunk-009")
q(B, "What does REP stand for, as in REP 103?",
  ["ROS Enhancement Proposal"], [], "chapter-05-chunk-002")

# ------------------------------------------------------------------ near-miss
N = "near-miss"
q(N, "How do I use ros1_bridge to connect my ROS 1 Noetic nodes to ROS 2 Jazzy?",
  [], [], None,
  covers="The book mentions ROS 1 and Noetic only in its history section (ch. 1) and teaches ROS 2 alone; bridging ROS 1 and ROS 2 is not covered.")
q(N, "How often are packages in the Rolling Ridley distribution updated, and should I use it instead of Jazzy?",
  [], [], None,
  covers="Only Humble Hawksbill (2022), Iron Irwini (2023), Jazzy Jalisco (2024) and, historically, Ardent Apalone (2017) are described; Rolling is not mentioned.")
q(N, "What is the default value of the deadline QoS policy?",
  [], [], None,
  covers="The book covers only the history, depth, reliability and durability policies and says further policies are beyond its scope.")
q(N, "How do I record /scan and /odom into a bag file with ros2 bag so I can replay them later?",
  [], [], None,
  covers="Only live inspection of topics (ros2 topic echo, hz, bw, info) is covered; recording and playback are not.")
q(N, "How do I write a ROS 2 launch file in YAML format?",
  [], [], None,
  covers="The book covers Python (.launch.py) and XML (.launch.xml) launch files only.")
q(N, "How do I convert Pipit's URDF into an SDF file for a physics simulator?",
  [], [], None,
  covers="The book covers URDF, xacro and robot_state_publisher; SDF is not covered.")
q(N, "How should I configure Nav2 and AMCL for a four-legged walking robot?",
  [], [], None,
  covers="Nav2 chapter concentrates on differential-drive robots like Pipit; AMCL motion models DifferentialMotionModel and OmniMotionModel only.")
q(N, "How do I configure Google Cartographer to build a map with Pipit?",
  [], [], None,
  covers="Mapping is taught with slam_toolbox only.")
q(N, "What are the steps to install ROS 2 Jazzy on Windows 11?",
  [], [], None,
  covers="Installation is described only for binary Debian packages on Ubuntu 24.04 (Jazzy) / 22.04 (Humble).")
q(N, "How do I set up a keepout zone with Nav2 costmap filters so that Pipit never drives into the kitchen?",
  [], [], None,
  covers="Costmaps are covered with static_layer, obstacle_layer, inflation_layer and voxel_layer only; costmap filters/keepout zones are not.")
q(N, "How do I fuse Pipit's IMU with its wheel odometry using the robot_localization EKF node?",
  [], [], None,
  covers="Odometry is computed from wheel encoders by pipit_base; the IMU is only listed as a sensor publishing /imu/data. Sensor fusion is not covered.")
q(N, "How do I enable SROS2 encryption so that other people on the network cannot read my topics?",
  [], [], None,
  covers="Only domain IDs, ROS_AUTOMATIC_DISCOVERY_RANGE / ROS_LOCALHOST_ONLY and ROS_STATIC_PEERS for limiting discovery are covered; security/encryption is not.")
q(N, "How do I spawn Pipit in the Gazebo simulator?",
  [], [], None,
  covers="The book only mentions the pipit_sim simulated robot and the use_sim_time parameter with /clock; Gazebo is not covered.")

q(N, "How long does it take to fully charge Pipit's battery?",
  [], ["2.5 hours"], None,
  covers="The book gives the battery's runtime (about 2.5 hours of typical use), its 14.8 V nominal voltage, 16.8 V full-charge reading and 13.2 V warning level, and the docking action, but no charging time.")
q(N, "What is the maximum range of Pipit's depth camera?",
  [], ["12.0 m", "12.0"], None,
  covers="Pipit carries only the LD-360 2D laser scanner (0.12 m to 12.0 m) and an IMU; depth cameras are only mentioned in general (voxel_layer, optical frames).")
q(N, "What z_resolution does the book use for the voxel_layer in Pipit's costmaps?",
  [], ["0.05"], None,
  covers="The voxel_layer is only mentioned as an alternative to the obstacle_layer that Pipit does not need; its parameters are not given. Costmap resolution 0.05 m is for the 2D grid.")

# ------------------------------------------------------------------ off-topic
O = "off-topic"
for text in [
    "What is the capital of Australia?",
    "Can you give me a good recipe for sourdough bread?",
    "Who won the FIFA World Cup in 2018?",
    "What were the main causes of the French Revolution?",
    "How do I center a div horizontally in CSS?",
    "What is the derivative of sin(x)?",
    "Which gaming laptop should I buy for under 1000 dollars?",
    "How do you say 'good morning' in Japanese?",
    "What will the weather be like in Berlin tomorrow?",
    "Who wrote the novel Pride and Prejudice?",
]:
    q(O, text, [], [], None)

# ------------------------------------------------------------------ follow-up
F = "follow-up"
q(F, "And what's the default for durability?",
  ["volatile"], ["transient_local"], "chapter-02-chunk-011",
  history=["What is the default reliability policy in ROS 2?"])
q(F, "And the minimum number of particles?",
  ["500"], ["2000"], "chapter-06-chunk-005",
  history=["What is amcl's default max_particles?"])
q(F, "What about Jazzy?",
  ["May 2029", "2029"], ["2027"], "chapter-01-chunk-003",
  history=["Until when is Humble Hawksbill supported?"])
q(F, "And if my package is ament_python instead?",
  ["data_files", "setup.py"], [], "chapter-04-chunk-003",
  history=["How do I install launch files in an ament_cmake package?"])
q(F, "And for the global one?",
  ["1.0 Hz", "1 Hz", "1.0"], ["5.0 Hz", "2.0 Hz"], "chapter-06-chunk-007",
  history=["What update_frequency does the book use for Pipit's local costmap?"])
q(F, "How can I then look at the whole tree to check that everything is connected?",
  ["view_frames", "ros2 run tf2_tools view_frames"], [], "chapter-05-chunk-009",
  history=["How do I publish a static transform for the laser from the command line?"])
q(F, "How often does it run?",
  ["20.0 Hz", "20 Hz", "20"], ["10.0 Hz", "1 Hz"], "chapter-06-chunk-009",
  history=["Which controller plugin does Nav2's controller_server use by default?"])
q(F, "And how far apart are its wheels?",
  ["0.30 m", "0.30", "0.3 m", "30 cm"], ["0.035"], "chapter-01-chunk-014",
  history=["What is Pipit's wheel radius?"])
q(F, "Is there something similar for actions?",
  ["ros2 action send_goal", "send_goal"], [], "chapter-03-chunk-014",
  history=["How do I call a service from the command line?"])
q(F, "And the sensor data one?",
  ["depth of 5", "5"], ["10", "1000"], "chapter-02-chunk-012",
  history=["What queue depth does the default QoS profile use?"])
q(F, "And which node publishes odom to base_link on Pipit?",
  ["pipit_base"], ["amcl", "robot_state_publisher"], "chapter-05-chunk-003",
  history=["Which kind of node publishes the map to odom transform?"])
